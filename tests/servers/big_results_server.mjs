// An MCP server written with the official TypeScript SDK (tests/thirdparty: @modelcontextprotocol/sdk),
// for the message-size tests: one tool, blob({size}), returns `size` bytes of text.
//
//   node tests/servers/big_results_server.mjs PORT
//
// It serves streamable HTTP at /mcp (McpServer + StreamableHTTPServerTransport, stateless: the answers
// come as SSE events, as from every TypeScript-SDK server) and the legacy HTTP+SSE transport at /sse
// (SSEServerTransport, messages POSTed to /messages).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../thirdparty/package.json', import.meta.url));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { SSEServerTransport } = require('@modelcontextprotocol/sdk/server/sse.js');
const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
const z = require('zod/v4');

function buildServer() {
    const server = new McpServer({ name: 'big-results', version: '1.0.0' });
    server.registerTool('blob', {
        description: 'Return size bytes of text.',
        inputSchema: { size: z.number().int().nonnegative() }
    }, async ({ size }) => ({ content: [{ type: 'text', text: 'b'.repeat(size) }] }));
    return server;
}

const app = createMcpExpressApp();

app.post('/mcp', async (req, res) => {
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
});
app.get('/mcp', (req, res) => res.status(405).set('Allow', 'POST').end());
app.delete('/mcp', (req, res) => res.status(405).set('Allow', 'POST').end());

const legacy = {};
app.get('/sse', async (req, res) => {
    const transport = new SSEServerTransport('/messages', res);
    legacy[transport.sessionId] = transport;
    transport.onclose = () => { delete legacy[transport.sessionId]; };
    await buildServer().connect(transport);
});
app.post('/messages', async (req, res) => {
    const transport = legacy[req.query.sessionId];
    if (!transport) {
        res.status(404).send('Session not found');
        return;
    }
    await transport.handlePostMessage(req, res, req.body);
});

const port = Number(process.argv[2] || 3000);
app.listen(port, '127.0.0.1', (error) => {
    if (error) {
        console.error(error);
        process.exit(1);
    }
});
