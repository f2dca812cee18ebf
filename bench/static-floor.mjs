// The floor of the frontend benchmarks: bare node:http answering every request with the same
// answer bytes, precomputed (BODY_FILE), so that the difference in server CPU time per request
// is what the service adds around sending them (routing, auth, the context, evaluation).
//
//   BODY_FILE=… PORT=… node bench/static-floor.mjs
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const body = readFileSync(process.env.BODY_FILE)
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length), etag: '"static"' }
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, headers)
    res.end(body)
  })
})
server.listen(Number(process.env.PORT), '127.0.0.1')
process.once('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
