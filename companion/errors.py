"""Error types a user can meet. Each is shown as one sentence, never a traceback."""


class CompanionError(Exception):
    """Base of every error the companion reports to a user."""


class InvalidRecordError(CompanionError, ValueError):
    """A game record, score sheet or config file breaks its documented format."""


class UnknownGameError(CompanionError, LookupError):
    """No game is registered under that name."""


class ConfigError(CompanionError, ValueError):
    """A configuration value or command-line option is not usable."""


class BrokerError(CompanionError, RuntimeError):
    """The MQTT broker could not be started or reached."""
