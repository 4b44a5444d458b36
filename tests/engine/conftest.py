import sys
from pathlib import Path

# engine_helpers.py builds explicit states; make it importable from these tests.
sys.path.insert(0, str(Path(__file__).parent))
