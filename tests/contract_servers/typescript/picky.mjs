// A read-only tool that knows one city and answers every other with a tool error, and a tool that
// may write, written with the official TypeScript SDK: fuzzing it without examples never gets past
// the errors, and tests/servers/test_typescript.py checks the summary's advice is in TypeScript's terms.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-picky", version: "1.0.0" });

server.registerTool(
  "forecast",
  {
    description: "Tomorrow's high for the one city the station serves.",
    inputSchema: { city: z.string() },
    outputSchema: { city: z.string(), high: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ city }) => {
    if (city !== "Tromsø") {
      return { content: [{ type: "text", text: `unknown city: ${city}` }], isError: true };
    }
    const data = { city, high: 3.5 };
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
  },
);

server.registerTool(
  "save_note",
  { description: "Stores a note.", inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text: `saved ${text.length} characters` }] }),
);

await server.connect(new StdioServerTransport());
