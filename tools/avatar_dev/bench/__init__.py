"""Benchmarks and evaluations, in one room. Nothing the kiosk runs imports this package (or
avatar_dev.train): tests/test_import_rules.py asserts it. Bench code may import any stage.

- pipeline.py     `avatar bench`: the whole voice loop on WAV files at real-time pace
- echo.py         `avatar bench-echo` / `avatar bench --echo ROOM`: echo and barge-in in a simulated
                  room, driven by the voice loop's barge-in rule (avatar/pipeline/barge_in.py)
  echo_turn.py    one closed-loop turn (loudspeaker, microphone, endpointer, rule)
  echo_audio.py   the replies, the visitors' clips and the room tone it plays
- room.py, erle.py  the simulated room and the echo canceller's ERLE measurement
- llm.py          `avatar bench-llm`: decoder speed, threshold vs one token per step, cache on/off
- tts.py          `avatar bench-tts`: time to first audio of the voices
- ui.py           `avatar bench-ui`: what the kiosk window costs to paint and to feed with events
- checks_cost.py  `avatar bench-checks`: the cost of each answer check, no model
- adversarial.py  `avatar bench-adversarial` / `avatar eval --adversarial N`: checked vs unchecked
                  answers on questions built to mislead (draws venues from avatar_dev.train)

The model's own evaluation (`avatar eval`) lives with the training code in tools/avatar_dev/train/.
"""
