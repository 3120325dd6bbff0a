"""JSON values and JSON Schema forms: reading, comparing and showing values, walking schemas, timed patterns."""
