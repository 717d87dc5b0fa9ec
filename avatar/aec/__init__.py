"""Echo cancellation: the loudspeaker's signal removed from the microphone. The room simulation and
the ERLE measurement that test and bench it live in avatar/bench/ (room.py, erle.py)."""
