import { createHash, generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Forge from 'node-forge';

let loaded: typeof Forge | undefined;

/**
 * node-forge, required on first use: it is some 900 KB of CommonJS that only EC2's Windows
 * password and WinRM certificate need, and bundled into the modules every command loads it was
 * compiled and run at each start (#25's start-up). bundle-cli.ts keeps it outside the bundle.
 */
function forge(): typeof Forge {
  loaded ??= createRequire(import.meta.url)('node-forge') as typeof Forge;
  return loaded;
}

/**
 * The Administrator password from GetPasswordData's PasswordData: base64 of RSA PKCS#1 v1.5
 * (RSAES-PKCS1-v1_5) ciphertext under the launch key pair. Node 20 refuses this padding for
 * private decryption (CVE-2023-46809 hardening; shared/RESEARCH.md), so node-forge decrypts.
 */
export function decryptWindowsPassword(passwordData: string, privateKeyPem: string): string {
  const key = forge().pki.privateKeyFromPem(privateKeyPem);
  const ciphertext = forge().util.decode64(passwordData.replace(/\s+/g, ''));
  return forge().util.decodeUtf8(key.decrypt(ciphertext, 'RSAES-PKCS1-V1_5'));
}

/** A self-signed WinRM HTTPS certificate and what kubemix pins. */
export interface WinrmCertificate {
  /** PKCS#12 without a password, base64 (goes into the instance's user data). */
  pfxBase64: string;
  /** SHA-256 of the DER certificate, lower-case hex: what the WinRM transport pins. */
  fingerprint: string;
}

/**
 * A self-signed certificate for one Windows host's WinRM HTTPS listener (server auth, the host
 * name as CN and DNS SAN, 2 years). kubemix pins its fingerprint instead of trusting a CA.
 */
export function winrmCertificate(hostName: string, now: Date): WinrmCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge().pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge().pki.createCertificate();
  cert.publicKey = forge().pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${createHash('sha256').update(`${hostName}${now.toISOString()}`).digest('hex').slice(0, 30)}`;
  cert.validity.notBefore = new Date(now.getTime() - 3_600_000);
  cert.validity.notAfter = new Date(now.getTime() + 2 * 365 * 86_400_000);
  const subject = [{ name: 'commonName', value: hostName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: hostName }] },
  ]);
  cert.sign(key, forge().md.sha256.create());
  const der = Buffer.from(forge().asn1.toDer(forge().pki.certificateToAsn1(cert)).getBytes(), 'binary');
  const pfx = forge().pkcs12.toPkcs12Asn1(key, cert, null, { algorithm: '3des' });
  return {
    pfxBase64: Buffer.from(forge().asn1.toDer(pfx).getBytes(), 'binary').toString('base64'),
    fingerprint: createHash('sha256').update(der).digest('hex'),
  };
}

/**
 * The fingerprint kubemix pins for a certificate kept as PKCS#12 (base64, no password): SHA-256 of
 * its DER certificate, lower-case hex, as {@link winrmCertificate} gives it.
 */
export function certificateFingerprint(pfxBase64: string): string {
  const asn1 = forge().asn1.fromDer(forge().util.decode64(pfxBase64));
  const pfx = forge().pkcs12.pkcs12FromAsn1(asn1);
  const bagType = forge().pki.oids['certBag'] as string;
  const cert = pfx.getBags({ bagType })[bagType]?.[0]?.cert;
  if (!cert) throw new TypeError('the PKCS#12 holds no certificate');
  const der = Buffer.from(forge().asn1.toDer(forge().pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return createHash('sha256').update(der).digest('hex');
}
