"""A small weather service exposed over MCP: the example project of pytest-mcp-contract."""
