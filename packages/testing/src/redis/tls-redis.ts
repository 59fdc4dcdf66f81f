/**
 * `startTlsRedis`: a real `redis-server` that speaks TLS, with a self-signed
 * certificate made by `openssl` for 127.0.0.1, to test `rediss://` URLs, the
 * trust of a CA and what a client says when it does not trust one.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrandError } from "@errand/core";
import {
  findFreePort,
  findOnPath,
  launchLocalRedis,
  redisConfigArgs,
  runCommand,
} from "@errand/local-redis";

/** A self-signed certificate and its key, in PEM files. */
interface SelfSignedCertificate {
  /** The certificate: also the CA a client must trust. */
  certFile: string;
  keyFile: string;
}

/** A running TLS Redis. */
export interface TlsRedisServer {
  /** `rediss://127.0.0.1:<tls port>`: needs {@link caFile} trusted. */
  tlsUrl: string;
  /** `redis://127.0.0.1:<port>`: the same server without TLS. */
  url: string;
  /** The CA (the server's self-signed certificate) a client must trust. */
  caFile: string;
  /** A CA that did not sign the server's certificate: trusting it is not enough. */
  otherCaFile: string;
  /** Shuts the server down and removes its directory and certificates. */
  stop(): Promise<void>;
}

/** Makes a self-signed certificate for `127.0.0.1` in `dir`, its files named after `name`. */
async function selfSignedCertificate(dir: string, name: string): Promise<SelfSignedCertificate> {
  const openssl = findOnPath("openssl");
  if (openssl === undefined) {
    throw new ErrandError("redis_unavailable", "startTlsRedis needs openssl on PATH");
  }
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const { code, output } = await runCommand(openssl, [
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
    ...["-keyout", keyFile, "-out", certFile],
    ...["-subj", `/CN=${name}`, "-addext", "subjectAltName=IP:127.0.0.1"],
  ]);
  if (code !== 0) {
    throw new ErrandError("redis_unavailable", `openssl could not make a certificate: ${output}`);
  }
  return { certFile, keyFile };
}

/**
 * Starts `redis-server` from PATH with a TLS port beside its plain one (both
 * on loopback), its certificate self-signed for 127.0.0.1, clients not asked
 * for certificates. Needs `redis-server` built with TLS (Debian's is) and
 * `openssl` on PATH.
 */
export async function startTlsRedis(): Promise<TlsRedisServer> {
  const binary = findOnPath("redis-server");
  if (binary === undefined) {
    throw new ErrandError("redis_unavailable", "startTlsRedis needs redis-server on PATH");
  }
  const certs = await mkdtemp(join(tmpdir(), "errand-tls-"));
  try {
    const server = await selfSignedCertificate(certs, "errand-test-redis");
    const other = await selfSignedCertificate(certs, "errand-test-other-ca");
    let tlsPort = 0;
    const launched = await launchLocalRedis(binary, async () => {
      tlsPort = await findFreePort();
      return [
        ...redisConfigArgs({ maxmemoryPolicy: "noeviction" }),
        ...["--tls-port", String(tlsPort), "--tls-auth-clients", "no"],
        ...["--tls-cert-file", server.certFile, "--tls-key-file", server.keyFile],
        ...["--tls-ca-cert-file", server.certFile],
      ];
    });
    const { host, port } = launched.process;
    return {
      tlsUrl: `rediss://${host}:${tlsPort}`,
      url: `redis://${host}:${port}`,
      caFile: server.certFile,
      otherCaFile: other.certFile,
      async stop() {
        await launched.dispose();
        await rm(certs, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(certs, { recursive: true, force: true });
    throw error;
  }
}
