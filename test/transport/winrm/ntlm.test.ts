import { describe, expect, it } from 'vitest';
import { NtlmClient } from '../../../src/transport/winrm/ntlm/client.js';
import { NegotiateFlag } from '../../../src/transport/winrm/ntlm/constants.js';
import {
  deriveSessionKeys,
  lmv2Response,
  ntlmv2Blob,
  ntowfv2,
  ntProofStr,
  sessionBaseKey,
} from '../../../src/transport/winrm/ntlm/crypto.js';
import { parseAuthenticate, parseChallenge } from '../../../src/transport/winrm/ntlm/messages.js';
import { rc4 } from '../../../src/transport/winrm/ntlm/rc4.js';
import { NtlmAuthError, NtlmServer } from '../../../src/transport/winrm/ntlm/server.js';
import {
  NtlmSessionSecurity,
  NtlmSignatureError,
} from '../../../src/transport/winrm/ntlm/session-security.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// MS-NLMP 4.2.1 common values and 4.2.4 NTLMv2 example.
const serverChallenge = hex('0123456789abcdef');
const clientChallenge = hex('aaaaaaaaaaaaaaaa');
const randomSessionKey = Buffer.alloc(16, 0x55);
const time = Buffer.alloc(8);
// 4.2.4.3 CHALLENGE_MESSAGE (flags e28a8233, target "Server", AV pairs Domain / Server).
const challengeMessage = hex(`
  4e544c4d53535000 02000000 0c000c00 38000000 33828ae2 0123456789abcdef 0000000000000000
  24002400 44000000 060070170000000f 530065007200760065007200
`);
const targetInfo = hex('02000c0044006f006d00610069006e0001000c005300650072007600650072000000 0000');
const fullChallenge = Buffer.concat([challengeMessage, targetInfo]);

describe('NTLMv2 (MS-NLMP 4.2.4 example values)', () => {
  const responseKey = ntowfv2('Password', 'User', 'Domain');

  it('parses the example CHALLENGE_MESSAGE', () => {
    const parsed = parseChallenge(fullChallenge);
    expect(parsed.flags >>> 0).toBe(0xe28a8233);
    expect(parsed.serverChallenge.equals(serverChallenge)).toBe(true);
    expect(parsed.targetName).toBe('Server');
    expect(parsed.targetInfo.map((p) => [p.id, p.value.toString('utf16le')])).toEqual([
      [2, 'Domain'],
      [1, 'Server'],
    ]);
  });

  it('computes NTOWFv2', () => {
    expect(responseKey.toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
  });

  it('computes the LMv2 response', () => {
    expect(lmv2Response(responseKey, serverChallenge, clientChallenge).toString('hex')).toBe(
      '86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa',
    );
  });

  it('computes NTProofStr, the session base key and the encrypted session key', () => {
    const blob = ntlmv2Blob(time, clientChallenge, targetInfo);
    const proof = ntProofStr(responseKey, serverChallenge, blob);
    expect(proof.toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    const base = sessionBaseKey(responseKey, proof);
    expect(base.toString('hex')).toBe('8de40ccadbc14a82f15cb0ad0de95ca3');
    expect(rc4(base, randomSessionKey).toString('hex')).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
  });

  it('derives the example sealing and signing keys', () => {
    const keys = deriveSessionKeys(randomSessionKey, 0xe28a8233);
    expect(keys.clientSealKey.toString('hex')).toBe('59f600973cc4960a25480a7c196e4c58');
    expect(keys.clientSignKey.toString('hex')).toBe('4788dc861b4782f35d43fd98fe1a2d39');
  });

  it('seals "Plaintext" to the example output and signature (4.2.4.4)', () => {
    const security = new NtlmSessionSecurity(randomSessionKey, 0xe28a8233, 'client');
    const { sealed, signature } = security.seal(Buffer.from('Plaintext', 'utf16le'));
    expect(sealed.toString('hex')).toBe('54e50165bf1936dc996020c1811b0f06fb5f');
    expect(signature.toString('hex')).toBe('010000007fb38ec5c55d497600000000');
  });

  it('the client produces the example responses when its random values are pinned', () => {
    const client = new NtlmClient(
      { account: 'Domain\\User', password: 'Password', workstation: 'COMPUTER' },
      { clientChallenge, exportedSessionKey: randomSessionKey, timestamp: time },
    );
    client.negotiate();
    const { message, exportedSessionKey } = client.authenticate(fullChallenge);
    const auth = parseAuthenticate(message);
    expect(auth.user).toBe('User');
    expect(auth.domain).toBe('Domain');
    expect(auth.workstation).toBe('COMPUTER');
    expect(auth.ntResponse.subarray(0, 16).toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(auth.lmResponse.toString('hex')).toBe('86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
    expect(auth.encryptedRandomSessionKey.toString('hex')).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
    expect(exportedSessionKey.equals(randomSessionKey)).toBe(true);
  });
});

describe('NTLM client <-> server', () => {
  const handshake = (password: string) => {
    const server = new NtlmServer({
      lookupPassword: (user) => (user.toLowerCase() === 'vagrant' ? 's3cret!' : undefined),
    });
    const client = new NtlmClient({ account: 'vagrant', password });
    const challenge = server.challenge(client.negotiate());
    const c = client.authenticate(challenge);
    return { c, s: () => server.authenticate(c.message) };
  };

  it('authenticates with a MIC (server timestamp) and agrees on keys both ways', () => {
    const { c, s } = handshake('s3cret!');
    const server = s();
    expect(server.user).toBe('vagrant');
    expect(c.flags & NegotiateFlag.KEY_EXCH).toBeTruthy();
    // Several messages each way: the RC4 handles and sequence numbers must stay in step.
    for (const text of ['first', 'zweite Grüße', 'x'.repeat(100_000)]) {
      const up = c.security.seal(Buffer.from(text));
      expect(server.security.unseal(up.sealed, up.signature).toString()).toBe(text);
      const down = server.security.seal(Buffer.from(`re: ${text}`));
      expect(c.security.unseal(down.sealed, down.signature).toString()).toBe(`re: ${text}`);
    }
  });

  it('rejects a wrong password', () => {
    const { s } = handshake('wrong');
    expect(s).toThrow(NtlmAuthError);
    expect(s).toThrow(/wrong password/);
  });

  it('rejects a tampered AUTHENTICATE message through the MIC', () => {
    const server = new NtlmServer({ lookupPassword: () => 'pw' });
    const client = new NtlmClient({ account: 'u', password: 'pw' });
    const { message } = client.authenticate(server.challenge(client.negotiate()));
    message.writeUInt32LE((message.readUInt32LE(60) & ~NegotiateFlag.N56) >>> 0, 60);
    expect(() => server.authenticate(message)).toThrow(/MIC/);
  });

  it('detects a tampered or replayed sealed message', () => {
    const { c, s } = handshake('s3cret!');
    const server = s();
    const msg = c.security.seal(Buffer.from('hello'));
    msg.sealed[0] = (msg.sealed[0] ?? 0) ^ 1;
    expect(() => server.security.unseal(msg.sealed, msg.signature)).toThrow(NtlmSignatureError);
  });
});
