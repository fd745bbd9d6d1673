"""Shared fixtures. Real data (Parallel Workloads Archive logs, ETC matrices) is read from
the data directory the Rust tests use: ``$GRIDSCHED_DATA``, else ``../shared/data`` next to
the checkout. Without it the tests that need it are skipped with a message, or fail when
``GRIDSCHED_REQUIRE_DATA=1`` (as CI sets it when the data is there)."""

import os
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    env = os.environ.get("GRIDSCHED_DATA")
    return Path(env) if env else CHECKOUT.parent / "shared" / "data"


DATA = data_dir()
if DATA.is_dir():
    # The package resolves short log names (KTH, HPC2N) through the same variable.
    os.environ["GRIDSCHED_DATA"] = str(DATA)


def need(*relative: str) -> None:
    """Skips (or fails, with GRIDSCHED_REQUIRE_DATA=1) unless every file is in the data dir."""
    missing = [r for r in relative if not (DATA / r).exists()]
    if missing:
        message = f"real data missing in {DATA}: {', '.join(missing)} (set GRIDSCHED_DATA)"
        if os.environ.get("GRIDSCHED_REQUIRE_DATA") == "1":
            pytest.fail(message)
        pytest.skip(message)


KTH = "traces/KTH-SP2-1996-2.1-cln.swf.gz"
HPC2N = "traces/HPC2N-2002-2.2-cln.swf.gz"
SDSC = "traces/SDSC-SP2-1998-4.2-cln.swf.gz"
BRAUN = "etc/braun/u_c_hihi.0"
