/** NEGOTIATE flags (MS-NLMP 2.2.2.5). */
export const NegotiateFlag = {
  UNICODE: 0x0000_0001,
  OEM: 0x0000_0002,
  REQUEST_TARGET: 0x0000_0004,
  SIGN: 0x0000_0010,
  SEAL: 0x0000_0020,
  NTLM: 0x0000_0200,
  ALWAYS_SIGN: 0x0000_8000,
  TARGET_TYPE_DOMAIN: 0x0001_0000,
  TARGET_TYPE_SERVER: 0x0002_0000,
  EXTENDED_SESSIONSECURITY: 0x0008_0000,
  TARGET_INFO: 0x0080_0000,
  VERSION: 0x0200_0000,
  N128: 0x2000_0000,
  KEY_EXCH: 0x4000_0000,
  N56: 0x8000_0000,
} as const;

/** The flags our client asks for: NTLMv2 with signing, sealing and a random session key. */
export const CLIENT_FLAGS =
  (NegotiateFlag.UNICODE |
    NegotiateFlag.REQUEST_TARGET |
    NegotiateFlag.SIGN |
    NegotiateFlag.SEAL |
    NegotiateFlag.NTLM |
    NegotiateFlag.ALWAYS_SIGN |
    NegotiateFlag.EXTENDED_SESSIONSECURITY |
    NegotiateFlag.TARGET_INFO |
    NegotiateFlag.VERSION |
    NegotiateFlag.N128 |
    NegotiateFlag.KEY_EXCH |
    NegotiateFlag.N56) >>>
  0;

/** AV_PAIR ids (MS-NLMP 2.2.2.1). */
export const AvId = {
  EOL: 0,
  NbComputerName: 1,
  NbDomainName: 2,
  DnsComputerName: 3,
  DnsDomainName: 4,
  DnsTreeName: 5,
  Flags: 6,
  Timestamp: 7,
  SingleHost: 8,
  TargetName: 9,
  ChannelBindings: 10,
} as const;

/** MsvAvFlags bit: the AUTHENTICATE message carries a MIC. */
export const AV_FLAG_MIC_PRESENT = 0x2;

export const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');

/** Version structure we send: Windows 10.0 build 17763, NTLM revision 15. */
export const OUR_VERSION = Buffer.from([10, 0, 0x63, 0x45, 0, 0, 0, 0x0f]);

// MS-NLMP 3.4.5.2 / 3.4.5.3 magic constants, NUL-terminated as the spec requires.
export const CLIENT_SIGN_MAGIC = 'session key to client-to-server signing key magic constant\0';
export const SERVER_SIGN_MAGIC = 'session key to server-to-client signing key magic constant\0';
export const CLIENT_SEAL_MAGIC = 'session key to client-to-server sealing key magic constant\0';
export const SERVER_SEAL_MAGIC = 'session key to server-to-client sealing key magic constant\0';
