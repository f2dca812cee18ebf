// A small round-robin HTTP reverse proxy for the compose "scale" profile: one port in front
// of several api instances. Not a production load balancer (no health checks, no retries of
// requests already sent); it exists to show and test several instances on one PostgreSQL.
import http from 'node:http'

const upstreams = (process.env.UPSTREAMS ?? '').split(',').filter(Boolean).map((u) => {
  const [host, port] = u.split(':')
  return { host, port: Number(port ?? 4242) }
})
if (upstreams.length === 0) {
  console.error('UPSTREAMS must list host:port pairs, comma-separated')
  process.exit(1)
}
let next = 0

const server = http.createServer((req, res) => {
  const upstream = upstreams[next++ % upstreams.length]
  const forward = http.request(
    { host: upstream.host, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-upstream': upstream.host })
      answer.pipe(res)
    }
  )
  forward.on('error', (error) => {
    if (res.headersSent) return res.destroy()
    res.writeHead(502, { 'content-type': 'application/problem+json' })
    res.end(JSON.stringify({ type: 'about:blank', title: 'Bad gateway', status: 502, detail: `${upstream.host}: ${error.message}` }))
  })
  req.pipe(forward)
})
server.listen(Number(process.env.PORT ?? 8080), '0.0.0.0')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
