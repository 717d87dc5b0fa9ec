"""`avatar run` says how long start-up took: the age of the process, imports included."""
import subprocess
import sys


def test_process_age_counts_from_the_process_start_not_from_the_import():
    code = "import time; time.sleep(0.6); from avatar.trace import process_age_s; print(process_age_s())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    age = float(out.stdout)
    assert 0.6 <= age < 30.0
