"""The GPU probe harness: measure shared-memory instructions on a real GPU with Nsight Compute.

Run from ``calibration/`` as ``python3 -m harness COMMAND`` (``--help`` lists them). The GPU side
(``gpu``: build, SASS dump, ncu, faults, seed kernels, timing) needs only the standard library, nvcc,
cuobjdump and ncu; turning what it wrote into corpus JSON (``corpus``, ``kernels``, ``timing``) runs
anywhere simsmem is installed. ``calibration/README.md`` says how.
"""
