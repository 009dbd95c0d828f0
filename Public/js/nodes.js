// Which cluster nodes the page may connect to: `?nodes=host1:port1,host2:port2` lists them, so a
// viewer whose node dies reconnects to another one (connection.js moves along the list on each
// loss). Without the parameter the page's own host is the only node, as before clusters.
//
// The server checks the Origin of every WebSocket, and a page served by one node carries that
// node's origin to the others: reconnecting across nodes needs each node started with
// `--allowed-origins '*'` or with the page's origin (e.g. http://127.0.0.1:8080) in its list,
// else the other nodes refuse the handshake and the page keeps going round the list.

// A DNS name or IPv4 address (labels of letters, digits and inner hyphens), or a bracketed IPv6
// address; then a port. Anything else could not be put in a ws:// URL as a host, so it is dropped.
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const HOST_IPV6 = /^\[[0-9a-f:.]{2,45}\]$/;

/** One node address normalised to "host:port" (host lower-cased), or null if it is not one. */
export function parseNode(text) {
  if (typeof text !== "string") return null;
  const match = /^(.+):(\d{1,5})$/.exec(text.trim().toLowerCase());
  if (!match) return null;
  const [, host, portText] = match;
  const port = Number(portText);
  if (port < 1 || port > 65535) return null;
  if (!HOST_NAME.test(host) && !HOST_IPV6.test(host)) return null;
  return `${host}:${port}`;
}

/** The valid nodes of a comma-separated list, in order, each once; junk entries are left out. */
export function parseNodes(text) {
  if (typeof text !== "string") return [];
  const nodes = [];
  for (const entry of text.split(",")) {
    const node = parseNode(entry);
    if (node && !nodes.includes(node)) nodes.push(node);
  }
  return nodes;
}

/** The page's own node as "host:port", its scheme's default port spelled out so that it compares
 * equal to the same node written in ?nodes=. */
export function ownNode(loc = window.location) {
  const port = loc.port || (loc.protocol === "https:" ? "443" : "80");
  return `${loc.hostname.toLowerCase()}:${port}`;
}

/**
 * The nodes to use and which to start with: ?nodes= (its valid entries) or, when that gives none,
 * the page's own node alone. The page starts with its own node if the list has it (the node that
 * served the page is known to be up), else with the first.
 */
export function nodesFromLocation(loc = window.location) {
  const own = ownNode(loc);
  const listed = parseNodes(new URLSearchParams(loc.search).get("nodes") ?? "");
  const nodes = listed.length > 0 ? listed : [own];
  return { nodes, start: Math.max(0, nodes.indexOf(own)) };
}
