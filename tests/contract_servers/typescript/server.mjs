// A weather server written with the official TypeScript MCP SDK, spoken to over stdio by
// tests/test_typescript.py. Plain JavaScript (an ES module), so node runs it without a build step.
//
// get_forecast is healthy. The other two carry a defect the SDK lets through, each one that only
// pytest-mcp-contract catches:
//
// * The SDK checks structuredContent against the tool's zod outputSchema before it answers, but
//   never looks at the content blocks: air_quality's text disagrees with its structuredContent
//   (content-mismatch).
// * zod's default z.object() strips unknown keys and succeeds, yet the SDK publishes the schema
//   with "additionalProperties": false and sends the handler's result, not zod's parsed copy: the
//   extra key station_info leaks breaks the schema every client is given (structured-invalid).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-weather", version: "1.0.0" });

// The JSON of the data as the text block, the way a careful server mirrors structuredContent.
function structured(data) {
  return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
}

server.registerTool(
  "get_forecast",
  {
    title: "Forecast",
    description: "Daily forecast for a city.",
    inputSchema: { city: z.string(), days: z.number().int().min(1).max(3).default(2) },
    outputSchema: {
      city: z.string(),
      days: z.array(
        z.object({
          day: z.number().int(),
          high: z.number().describe("Degrees Celsius"),
          low: z.number().describe("Degrees Celsius"),
          conditions: z.enum(["sunny", "cloudy", "rain"]),
        }),
      ),
    },
  },
  async ({ city, days }) => {
    const conditions = ["sunny", "cloudy", "rain"];
    const forecast = Array.from({ length: days }, (_, day) => ({
      day: day + 1,
      high: 12.5 + day,
      low: 4 + day,
      conditions: conditions[day % conditions.length],
    }));
    return structured({ city, days: forecast });
  },
);

server.registerTool(
  "air_quality",
  {
    description: "Air quality index for a city.",
    inputSchema: { city: z.string() },
    outputSchema: { city: z.string(), aqi: z.number().int(), level: z.enum(["good", "moderate", "poor"]) },
  },
  async ({ city }) => {
    const reading = { city, aqi: 42, level: "good" };
    // Planted defect: the text is built from yesterday's reading, not the one in structuredContent.
    const yesterday = { ...reading, aqi: 87, level: "moderate" };
    return { content: [{ type: "text", text: JSON.stringify(yesterday) }], structuredContent: reading };
  },
);

server.registerTool(
  "station_info",
  {
    description: "The weather station that serves a city.",
    inputSchema: { city: z.string() },
    outputSchema: { station: z.string(), elevation: z.number() },
  },
  async ({ city }) => {
    // Planted defect: the database row goes out whole, its internal key with it.
    const row = { station: `${city} Central`, elevation: 23, internal_id: "st-0042" };
    return structured(row);
  },
);

await server.connect(new StdioServerTransport());
