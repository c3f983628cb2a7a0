"""The measurements simsmem is validated against, and the code that makes, reads and replays them.

Not part of simsmem's wheel: tests (``tests/conftest.py``) and scripts put the repository on ``sys.path`` and
import it as ``calibration.*``. The data (``h100/``, ``realk/``, ``patterns/``) is read
from this folder of the repository. ``README.md`` says how the measurements were made.
"""
