"""The referee: stillness gate, durable game log, and the session that judges settled boards."""
