"""The contract: the checks (pure functions), the mirror rule, schema validation, violations, expectations."""
