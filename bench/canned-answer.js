// @ts-check
'use strict';
const http = require('node:http');

/**
 * For a bench's child process: a server on 127.0.0.1 answering every request with `answer` (JSON,
 * kept-alive connections) at once, its port sent to the parent over IPC. In a process of its own,
 * so the CPU the parent measures is the client's only.
 * @param {string} answer
 */
function serveCannedAnswer(answer) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.(/** @type {any} */ (server.address()).port));
}

module.exports = { serveCannedAnswer };
