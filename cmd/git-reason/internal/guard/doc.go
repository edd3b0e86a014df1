// Package guard is the one gate in front of every HTTP surface git reason
// serves on a laptop: serve and mcp --http (web shares its Host check).
//
// A browser on the same machine can reach a loopback server: any web page
// may POST to 127.0.0.1 (a "simple" request needs no preflight when its
// Content-Type is text/plain), and a page on a domain the attacker controls
// can rebind its name to 127.0.0.1 (DNS rebinding) and then read the
// answers. So, for every request, in this order:
//
//   - the Host header must be a loopback name or address (localhost,
//     127.0.0.0/8, ::1) or one allowed explicitly: a rebound name is
//     refused (403);
//   - a request carrying an Origin header comes from a browser page and is
//     refused (403) unless that origin is allowed explicitly; a page on an
//     allowed origin gets CORS headers naming it (never "*", never
//     credentials), so that it can read the answers, and its preflight
//     (OPTIONS with Access-Control-Request-Method) is answered here, without
//     the token a browser never sends on one, and goes no further;
//   - "Authorization: Bearer <token>" must carry the token, compared in
//     constant time (401); there is always a token, loopback included
//     (see LoadOrCreateToken);
//   - the Content-Type must be application/json (415), which a page cannot
//     send without a preflight, answered for allowed origins only (a method
//     listed in NoBody may carry no body and then no type);
//   - at most MaxInFlight requests run at once; past that, 503 with
//     Retry-After;
//   - the body is capped (413).
//
// Run serves until a context ends, bounded by Limits (API for serve and
// mcp --http, Page for web); Token
// finds or generates a server's token; Exposure warns about a
// listener beyond loopback. Refusals are one short JSON
// object, {"error": "..."}, saying what to fix and nothing about the
// server's configuration.
package guard
