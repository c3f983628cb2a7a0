"""Shared fixtures and the hypothesis profiles (deterministic in CI)."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from simsmem.config import load_arch

settings.register_profile("ci", max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
H100 = ROOT / "calibration" / "h100"


@pytest.fixture(scope="session")
def sm90():
    return load_arch("sm_90")
