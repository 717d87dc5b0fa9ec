"""User-facing errors: every failure a visitor or operator can cause ends here, never in a traceback."""


class AvatarError(Exception):
    """An error with a message for people and a hint saying what to do about it."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


class ConfigError(AvatarError):
    """An invalid setting; the message names the key."""


class ModelError(AvatarError):
    """A model file or folder is missing, corrupt or not usable."""


class DeviceError(AvatarError):
    """An audio device, display or accelerator is missing."""


class AudioFileError(AvatarError):
    """An audio file cannot be read or written."""


class DeviceWaitExpired(DeviceError):
    """A device the kiosk waited for did not come in time: the app exits non-zero so that its
    supervisor (systemd, the autostart script) starts it again."""
