"""Echo cancellation: the loudspeaker's signal removed from the microphone (plus the room simulation
and ERLE measurement that test and bench it)."""
