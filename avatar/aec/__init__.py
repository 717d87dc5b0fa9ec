"""Echo cancellation: the loudspeaker's signal removed from the microphone. The room simulation and
the ERLE measurement that test and bench it live in tools/avatar_dev/bench/ (room.py, erle.py)."""
