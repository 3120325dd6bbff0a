"""MCP servers the tests talk to: real SDK servers, correct ones and deliberately broken ones."""
