"""Pure game mechanics: functions over plain data with an injected dice roller. No I/O here."""
