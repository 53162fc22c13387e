/** The line the server logs at start when ALLOW_PRIVATE_NETWORK is true (docs/outbound-requests.md). */
export const PRIVATE_NETWORK_ON =
  'private-network access is on (ALLOW_PRIVATE_NETWORK=true): webhooks, tools, crawls and provider base URLs may reach ' +
  'this machine and your local network (localhost, 10.x, 192.168.x, …). Fine for a local model server on your own machine; ' +
  'to refuse such addresses again, remove ALLOW_PRIVATE_NETWORK (or set it to false) and restart.';
