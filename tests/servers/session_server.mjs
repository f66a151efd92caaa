// A streamable HTTP MCP server written with the official TypeScript SDK (tests/thirdparty:
// @modelcontextprotocol/sdk), with sessions (a sessionIdGenerator) but no event store, so an answer
// whose stream is cut cannot be resumed: the dropped-response tests (issue 37). The same tools as
// tests/servers/session_server.py:
//
//   node tests/servers/session_server.mjs PORT
//
// whoami (read-only: the session id), remember {value} / recall (read-only: state kept per session),
// bump (no hints: counts its runs), peek (read-only: counts its runs), put {key, value} (idempotent),
// stats (read-only: the run counts as JSON). An unknown session id is answered with HTTP 404.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../thirdparty/package.json', import.meta.url));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
const { createMcpExpressApp } = require('@modelcontextprotocol/sdk/server/express.js');
const z = require('zod/v4');

const runs = {};
const remembered = {};
const count = (tool) => { runs[tool] = (runs[tool] || 0) + 1; return runs[tool]; };
const text = (value) => ({ content: [{ type: 'text', text: String(value) }] });
const readOnly = { readOnlyHint: true };

function buildServer() {
    const server = new McpServer({ name: 'sessions', version: '1.0.0' });
    server.registerTool('whoami', { description: 'The MCP session id of this call.', annotations: readOnly },
        async (extra) => { count('whoami'); return text(extra.sessionId || '(no session)'); });
    server.registerTool('remember', { description: 'Remember a value in this session.',
                                      inputSchema: { value: z.string() } },
        async ({ value }, extra) => { remembered[extra.sessionId] = value; return text('ok'); });
    server.registerTool('recall', { description: 'The value remembered in this session.', annotations: readOnly },
        async (extra) => text(remembered[extra.sessionId] || '(nothing)'));
    server.registerTool('bump', { description: 'Count one more bump (not idempotent).' },
        async () => text(count('bump')));
    server.registerTool('peek', { description: 'Read something (read-only); counts its runs.', annotations: readOnly },
        async () => text(`peeked ${count('peek')}`));
    server.registerTool('put', { description: 'Store a value under a key (idempotent).',
                                 inputSchema: { key: z.string(), value: z.string() },
                                 annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false } },
        async () => { count('put'); return text('stored'); });
    server.registerTool('stats', { description: 'How many times each counted tool ran, as JSON.',
                                   annotations: readOnly },
        async () => text(JSON.stringify(runs)));
    return server;
}

const sessions = {};
const app = createMcpExpressApp();

app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId) {
        const transport = sessions[sessionId];
        if (!transport) {
            res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
            return;
        }
        await transport.handleRequest(req, res, req.body);
        return;
    }
    if (!isInitializeRequest(req.body)) {
        res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
                               id: null });
        return;
    }
    const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),  // sessions, and no eventStore: nothing can be resumed
        onsessioninitialized: (id) => { sessions[id] = transport; },
    });
    transport.onclose = () => { if (transport.sessionId) delete sessions[transport.sessionId]; };
    await buildServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
});

const existing = async (req, res) => {
    const transport = sessions[req.headers['mcp-session-id']];
    if (!transport) {
        res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
        return;
    }
    await transport.handleRequest(req, res);
};
app.get('/mcp', existing);
app.delete('/mcp', existing);

const port = Number(process.argv[2] || 3000);
app.listen(port, '127.0.0.1', (error) => {
    if (error) {
        console.error(error);
        process.exit(1);
    }
});
