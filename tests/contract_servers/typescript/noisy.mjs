// A TypeScript SDK server with the most common defect of Node MCP servers: console.log writes to
// stdout, which over stdio is the MCP channel itself. Driven by tests/test_typescript.py.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-noisy", version: "1.0.0" });

server.registerTool(
  "lookup",
  {
    description: "Looks a city up, logging as it goes.",
    inputSchema: { city: z.string() },
    outputSchema: { city: z.string(), found: z.boolean() },
  },
  async ({ city }) => {
    console.log(`looking up ${city}`); // Planted defect: a log line on stdout, in the middle of the protocol.
    const data = { city, found: true };
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
  },
);

await server.connect(new StdioServerTransport());
