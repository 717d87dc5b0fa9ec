"""The developer tools of the avatar kiosk, outside its runtime package: the benches and evaluations
(avatar_dev.bench, run by `avatar bench*`, `avatar eval`, `avatar soak`) and the training of the embedded
models (avatar_dev.train, `avatar train`). A kiosk install carries only the `avatar` package; the commands
that need these tools say how to install them when they are missing (avatar/commands/dev_tools.py)."""
