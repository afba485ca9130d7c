/**
 * A loopback TCP proxy the test controls, to put between the app and a dependency (PostgreSQL,
 * Redis) and inject network faults for real:
 *
 *   stop()            nothing listens on the port any more and every open connection is cut
 *                     (the dependency is down: new connections are refused); start() listens again
 *   freeze()          connections are accepted but nothing is forwarded either way (a frozen
 *                     dependency: no answer, no error); freezeResponses() holds only what the
 *                     target sends; thaw() delivers everything held and forwards again
 *   dropConnections() cuts every open connection, the listener stays
 *   onClientData      sees each chunk a client sends before it is forwarded (e.g. to freeze the
 *                     answers right after the target received a COMMIT)
 *
 * `startTcpProxy(target, { listening: false })` reserves a port without listening, for "the app
 * starts while its dependency is down".
 */
import net from 'node:net';

export interface TcpProxyTarget {
  readonly host: string;
  readonly port: number;
}

export interface TcpProxy {
  readonly port: number;
  /** Connections currently open through the proxy. */
  readonly openConnections: number;
  onClientData: ((chunk: Buffer) => void) | null;
  start(): Promise<void>;
  stop(): Promise<void>;
  freeze(): void;
  freezeResponses(): void;
  thaw(): void;
  dropConnections(): void;
  /** Stops for good (same as stop()). */
  close(): Promise<void>;
}

interface Link {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  readonly heldRequests: Buffer[];
  readonly heldResponses: Buffer[];
}

function reservePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address() as net.AddressInfo;
      probe.close(() => resolve(address.port));
    });
  });
}

export async function startTcpProxy(target: TcpProxyTarget, options: { listening?: boolean } = {}): Promise<TcpProxy> {
  const port = await reservePort();
  const links = new Set<Link>();
  let requestsFrozen = false;
  let responsesFrozen = false;
  let listener: net.Server | null = null;

  const cut = (link: Link): void => {
    links.delete(link);
    link.client.destroy();
    link.upstream.destroy();
  };

  const accept = (client: net.Socket): void => {
    const upstream = net.connect(target.port, target.host);
    const link: Link = { client, upstream, heldRequests: [], heldResponses: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      proxy.onClientData?.(chunk);
      if (requestsFrozen) link.heldRequests.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (responsesFrozen) link.heldResponses.push(chunk);
      else client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => cut(link));
      socket.on('close', () => cut(link));
    }
  };

  const proxy: TcpProxy = {
    port,
    get openConnections() {
      return links.size;
    },
    onClientData: null,
    async start() {
      if (listener !== null) return;
      const server = net.createServer(accept);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      listener = server;
    },
    async stop() {
      const server = listener;
      listener = null;
      proxy.dropConnections();
      if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    freeze() {
      requestsFrozen = true;
      responsesFrozen = true;
    },
    freezeResponses() {
      responsesFrozen = true;
    },
    thaw() {
      requestsFrozen = false;
      responsesFrozen = false;
      for (const link of links) {
        for (const chunk of link.heldRequests.splice(0)) link.upstream.write(chunk);
        for (const chunk of link.heldResponses.splice(0)) link.client.write(chunk);
      }
    },
    dropConnections() {
      for (const link of [...links]) cut(link);
    },
    close() {
      return proxy.stop();
    },
  };
  if (options.listening ?? true) await proxy.start();
  return proxy;
}
