/*
 * mcp_apps_host.js: the browser half of an MCP Apps host (SEP-1865, extension "io.modelcontextprotocol/ui").
 *
 * No framework, no build step: load it with <script src="mcp_apps_host.js"></script> and it defines
 * `window.McpAppHost`. The other half runs on your server: `ml.AppBridge` answers the requests this file
 * forwards (see examples/web_app.py, route /apps/rpc).
 *
 *   const host = new McpAppHost({
 *     container: element,          // where the iframe goes (where the tool ran in the chat)
 *     view,                        // the "app" chunk's AppView.to_dict(): toolCallId, server, tool, input, result
 *     resource,                    // the app's UI: {html, csp, permissions, prefersBorder} (client.read_ui on the server)
 *     rpcUrl: "/apps/rpc",         // POST {app: view, request} -> the JSON-RPC response (ml.AppBridge)
 *     hostContext: {theme: "light"},
 *     onMessage: async (text, params) => { ... },   // ui/message: e.g. send `text` as the user's next message
 *   });
 *   host.mount();
 *
 * What it does, following the specification:
 * - The iframe is sandboxed with `allow-scripts` only (no `allow-same-origin`): the app runs in an opaque origin,
 *   apart from the page, and cannot read the page's cookies or storage. Its HTML goes in through `srcdoc`, with a
 *   `<meta http-equiv="Content-Security-Policy">` built from the resource's `csp` (restrictive when it declares
 *   nothing: no network at all). Permissions (camera...) are granted only when `grantPermissions` is true.
 * - Only messages whose `event.source` is this iframe's window are handled; anything else is ignored.
 * - `ui/initialize` is answered here (hostInfo, hostCapabilities, hostContext); after the app's
 *   `ui/notifications/initialized` the host sends `ui/notifications/tool-input` then `ui/notifications/tool-result`.
 * - `tools/call`, `resources/read` (and `ui/message` without an `onMessage` callback) go to the backend, which decides
 *   (only the app's own server, only tools the app may call); `ping`, `ui/open-link`, `ui/request-display-mode`
 *   are answered here; other requests get JSON-RPC error -32601.
 * - `ui/notifications/size-changed` resizes the iframe (up to `maxHeight`).
 *
 * A page on the public web should, in addition, serve apps from a separate origin (the specification's "sandbox
 * proxy"); `srcdoc` with an opaque origin is the simple form, enough when the page and its servers are yours.
 */
(function (global) {
  "use strict";

  var PROTOCOL_VERSION = "2026-01-26";
  var HOST_INFO = { name: "mcp-litellm-example-host", version: "1.0.0" };
  // A CSP source from a server is an origin (scheme://host[:port], with an optional "*." label); anything else
  // (quotes, semicolons, spaces, keywords) could rewrite the policy and is dropped.
  var ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$/;
  var PERMISSIONS = { camera: "camera", microphone: "microphone", geolocation: "geolocation",
                      clipboardWrite: "clipboard-write" };

  function origins(list) {
    return Array.isArray(list) ? list.filter(function (item) { return typeof item === "string" && ORIGIN.test(item); })
                               : [];
  }

  /** The Content-Security-Policy for an app, from its resource's `csp` ({connectDomains, resourceDomains,
   *  frameDomains, baseUriDomains}); without one, the specification's restrictive default. */
  function buildCsp(csp) {
    csp = csp || {};
    var resources = origins(csp.resourceDomains), connect = origins(csp.connectDomains);
    var frames = origins(csp.frameDomains), bases = origins(csp.baseUriDomains);
    function directive(name, base, extra) { return name + " " + base.concat(extra).join(" "); }
    return [
      "default-src 'none'",
      directive("script-src", ["'self'", "'unsafe-inline'"], resources),
      directive("style-src", ["'self'", "'unsafe-inline'"], resources),
      directive("img-src", ["'self'", "data:"], resources),
      directive("font-src", ["'self'", "data:"], resources),
      directive("media-src", ["'self'", "data:"], resources),
      connect.length ? directive("connect-src", [], connect) : "connect-src 'none'",
      frames.length ? directive("frame-src", [], frames) : "frame-src 'none'",
      bases.length ? directive("base-uri", [], bases) : "base-uri 'self'",
      "object-src 'none'",
      "form-action 'none'",
    ].join("; ");
  }

  function escapeAttribute(text) {
    return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  }

  /** The app's HTML with the CSP as the first element of its <head> (before any script runs). */
  function withCsp(html, policy) {
    var meta = '<meta http-equiv="Content-Security-Policy" content="' + escapeAttribute(policy) + '">';
    var head = /<head(\s[^>]*)?>/i.exec(html);
    if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
    var root = /<html(\s[^>]*)?>/i.exec(html);
    if (root) return html.slice(0, root.index + root[0].length) + "<head>" + meta + "</head>" +
                     html.slice(root.index + root[0].length);
    var doctype = /^\s*<!doctype[^>]*>/i.exec(html);
    var at = doctype ? doctype[0].length : 0;
    return html.slice(0, at) + "<head>" + meta + "</head>" + html.slice(at);
  }

  function textOf(params) {
    var content = params && params.content;
    var blocks = Array.isArray(content) ? content : content ? [content] : [];
    return blocks.filter(function (b) { return b && b.type === "text" && typeof b.text === "string"; })
                 .map(function (b) { return b.text; }).join("\n");
  }

  function McpAppHost(options) {
    if (!options || !options.container || !options.view || !options.resource) {
      throw new Error("McpAppHost needs container, view and resource");
    }
    this.options = options;
    this.view = options.view;
    this.resource = options.resource;
    this.rpcUrl = options.rpcUrl || "/apps/rpc";
    this.maxHeight = options.maxHeight || 600;
    this.hostContext = Object.assign({ theme: "light", displayMode: "inline", availableDisplayModes: ["inline"],
                                       platform: "web", containerDimensions: { maxHeight: this.maxHeight },
                                       toolInfo: { id: this.view.toolCallId, tool: { name: this.view.tool } } },
                                     options.hostContext || {});
    this.initialized = false;
    this.iframe = null;
    this._listener = this._receive.bind(this);
  }

  McpAppHost.buildCsp = buildCsp;
  McpAppHost.withCsp = withCsp;
  McpAppHost.PROTOCOL_VERSION = PROTOCOL_VERSION;

  /** Create the sandboxed iframe in the container and start listening to it. Returns the iframe. */
  McpAppHost.prototype.mount = function () {
    var iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.setAttribute("title", "App of tool " + this.view.tool);
    iframe.className = "mcp-app" + (this.resource.prefersBorder === false ? "" : " mcp-app-border");
    iframe.dataset.tool = this.view.tool;
    iframe.dataset.toolCallId = this.view.toolCallId;
    var permissions = this.resource.permissions || {};
    if (this.options.grantPermissions) {
      var allow = Object.keys(PERMISSIONS).filter(function (key) { return key in permissions; })
                        .map(function (key) { return PERMISSIONS[key]; });
      if (allow.length) iframe.setAttribute("allow", allow.join("; "));
    }
    iframe.style.width = "100%";
    iframe.style.height = "120px";
    iframe.style.border = "0";
    this.csp = buildCsp(this.resource.csp);
    iframe.srcdoc = withCsp(this.resource.html, this.csp);
    global.addEventListener("message", this._listener);  // before the iframe can post anything
    this.options.container.appendChild(iframe);
    this.iframe = iframe;
    return iframe;
  };

  /** Ask the app to tear down (ui/resource-teardown), then remove the iframe. */
  McpAppHost.prototype.unmount = function (reason) {
    var self = this;
    function remove() {
      global.removeEventListener("message", self._listener);
      if (self.iframe && self.iframe.parentNode) self.iframe.parentNode.removeChild(self.iframe);
      self.iframe = null;
    }
    if (!this.iframe || !this.initialized) { remove(); return Promise.resolve(); }
    var id = "teardown-" + Date.now();
    return new Promise(function (resolve) {
      var timer = setTimeout(done, 1000);
      function done() { clearTimeout(timer); remove(); resolve(); }
      self._pendingTeardown = { id: id, done: done };
      self._post({ jsonrpc: "2.0", id: id, method: "ui/resource-teardown", params: { reason: reason || "closed" } });
    });
  };

  /** Send a later tool result (for a host that mounts the app before the tool ends). */
  McpAppHost.prototype.sendToolResult = function (result) {
    this.view = Object.assign({}, this.view, { result: result });
    if (this.initialized) this._notify("ui/notifications/tool-result", result);
  };

  /** Tell the app its host context changed (e.g. {theme: "dark"}). */
  McpAppHost.prototype.setHostContext = function (changes) {
    Object.assign(this.hostContext, changes);
    if (this.initialized) this._notify("ui/notifications/host-context-changed", changes);
  };

  McpAppHost.prototype._post = function (message) {
    // The app's origin is opaque ("null"), so "*" is the only target origin that reaches it; the message goes to
    // this iframe's window only.
    if (this.iframe && this.iframe.contentWindow) this.iframe.contentWindow.postMessage(message, "*");
  };

  McpAppHost.prototype._notify = function (method, params) {
    this._post({ jsonrpc: "2.0", method: method, params: params || {} });
  };

  McpAppHost.prototype._reply = function (id, result) {
    this._post({ jsonrpc: "2.0", id: id, result: result });
  };

  McpAppHost.prototype._error = function (id, code, message) {
    this._post({ jsonrpc: "2.0", id: id, error: { code: code, message: message } });
  };

  McpAppHost.prototype._receive = function (event) {
    if (!this.iframe || event.source !== this.iframe.contentWindow) return;  // another window: not our app
    var message = event.data;
    if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
    if (typeof message.method !== "string") {  // a response to one of ours
      if (this._pendingTeardown && message.id === this._pendingTeardown.id) this._pendingTeardown.done();
      return;
    }
    if (message.id === undefined || message.id === null) {
      this._notification(message.method, message.params || {});
    } else {
      this._request(message);
    }
  };

  McpAppHost.prototype._notification = function (method, params) {
    if (method === "ui/notifications/initialized") {
      if (this.initialized) return;
      this.initialized = true;
      this._notify("ui/notifications/tool-input", { arguments: this.view.input || {} });
      if (this.view.result) this._notify("ui/notifications/tool-result", this.view.result);
    } else if (method === "ui/notifications/size-changed") {
      var height = Number(params.height);
      if (isFinite(height) && height > 0) this.iframe.style.height = Math.min(Math.ceil(height), this.maxHeight) + "px";
      if (this.options.onSizeChanged) this.options.onSizeChanged(params);
    } else if (method === "notifications/message") {
      if (this.options.onLog) this.options.onLog(params); else console.log("[app " + this.view.tool + "]", params);
    }
  };

  McpAppHost.prototype._request = function (message) {
    var self = this, id = message.id, params = message.params || {};
    switch (message.method) {
      case "ui/initialize":
        this._reply(id, {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: Object.assign({}, HOST_INFO, this.options.hostInfo || {}),
          hostCapabilities: { serverTools: {}, serverResources: {}, logging: {}, openLinks: {},
                              sandbox: { csp: this.resource.csp || {},
                                         permissions: this.options.grantPermissions ? this.resource.permissions || {}
                                                                                    : {} } },
          hostContext: this.hostContext,
        });
        return;
      case "ping":
        this._reply(id, {});
        return;
      case "ui/request-display-mode":
        this._reply(id, { mode: "inline" });  // this host shows apps inline only
        return;
      case "ui/open-link":
        if (typeof params.url !== "string" || !/^https?:\/\//i.test(params.url)) {
          this._error(id, -32602, "ui/open-link takes an http(s) URL");
        } else {
          global.open(params.url, "_blank", "noopener,noreferrer");
          this._reply(id, {});
        }
        return;
      case "ui/message":
        if (this.options.onMessage) {
          var text = textOf(params);
          if (!text) { this._error(id, -32602, "ui/message needs text content"); return; }
          Promise.resolve().then(function () { return self.options.onMessage(text, params); })
            .then(function () { self._reply(id, {}); },
                  function (error) { self._error(id, -32000, String(error && error.message || error)); });
          return;
        }
        this._forward(message);
        return;
      case "tools/call":
      case "resources/read":
        this._forward(message);
        return;
      default:
        this._error(id, -32601, "Method not supported by this host: " + message.method);
    }
  };

  /** POST the app's request to the backend (ml.AppBridge) and post its JSON-RPC response back to the app. */
  McpAppHost.prototype._forward = function (message) {
    var self = this, id = message.id;
    var request = { jsonrpc: "2.0", id: id, method: message.method, params: message.params || {} };
    if (this.options.onRequest) this.options.onRequest(request);
    fetch(this.rpcUrl, { method: "POST", headers: { "content-type": "application/json" },
                         body: JSON.stringify({ app: this.view, request: request }) })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok && !(body && (body.result || body.error))) {
            throw new Error("the backend answered HTTP " + response.status);
          }
          return body;
        });
      })
      .then(function (body) {
        if (self.options.onResponse) self.options.onResponse(request, body);
        if (body.error) self._post({ jsonrpc: "2.0", id: id, error: body.error });
        else self._reply(id, body.result);
      })
      .catch(function (error) { self._error(id, -32603, String(error && error.message || error)); });
  };

  global.McpAppHost = McpAppHost;
})(window);
