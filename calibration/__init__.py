"""The measurements simsmem is validated against, and the code that makes, reads and replays them.

Installed with simsmem (``pyproject.toml`` declares this package and ``calibration.harness``) so that
tests and scripts import it as ``calibration.*``. The data (``h100/``, ``realk/``, ``patterns/``) is read
from this folder of the repository. ``README.md`` says how the measurements were made.
"""
