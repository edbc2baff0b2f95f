import type { XMLBuilder } from 'fast-xml-parser';
import { fastXmlParser } from '../xml-library.js';

/**
 * The answer-file envelope (Microsoft Learn, "Unattended Windows Setup Reference" and "Answer
 * files (unattend.xml)"): `<unattend xmlns="urn:schemas-microsoft-com:unattend">` holding
 * `<settings pass="...">` blocks of `<component>`s, each naming its component with the
 * attributes Windows SIM writes. List items carry `wcm:action="add"` (and `wcm:keyValue` where
 * the reference keys them) from the WMIConfig namespace.
 */
export const UNATTEND_NAMESPACE = 'urn:schemas-microsoft-com:unattend';
export const WCM_NAMESPACE = 'http://schemas.microsoft.com/WMIConfig/2002/State';

/** Configuration passes (Microsoft Learn, "Windows Setup Configuration Passes"). */
export type UnattendPass =
  | 'windowsPE'
  | 'offlineServicing'
  | 'generalize'
  | 'specialize'
  | 'auditSystem'
  | 'auditUser'
  | 'oobeSystem';

/** An element's content as fast-xml-parser's builder takes it: `@_` keys are attributes. */
export type XmlNode = { [key: string]: XmlNode | XmlNode[] | string | number | boolean };

/** One component of one pass. */
export interface UnattendComponent {
  name: string;
  settings: XmlNode;
}

/** One `<settings pass>` block. */
export interface UnattendSettings {
  pass: UnattendPass;
  components: UnattendComponent[];
}

/** `wcm:action="add"` (and `wcm:keyValue`) for a list item. */
export function listItem(node: XmlNode, keyValue?: string): XmlNode {
  return keyValue === undefined
    ? { '@_wcm:action': 'add', ...node }
    : { '@_wcm:action': 'add', '@_wcm:keyValue': keyValue, ...node };
}

function componentNode(component: UnattendComponent): XmlNode {
  // The attributes Windows SIM writes for every amd64 component of Windows Server 2019/2022.
  return {
    '@_name': component.name,
    '@_processorArchitecture': 'amd64',
    '@_publicKeyToken': '31bf3856ad364e35',
    '@_language': 'neutral',
    '@_versionScope': 'nonSxS',
    ...component.settings,
  };
}

let builder: XMLBuilder | undefined;
const newBuilder = () =>
  new (fastXmlParser().XMLBuilder)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    indentBy: '  ',
    suppressEmptyNode: true,
  });

/** Serializes an answer file: UTF-8, every text and attribute value escaped by the builder. */
export function unattendDocument(settings: readonly UnattendSettings[]): string {
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'utf-8' },
    unattend: {
      '@_xmlns': UNATTEND_NAMESPACE,
      '@_xmlns:wcm': WCM_NAMESPACE,
      settings: settings.map((block) => ({
        '@_pass': block.pass,
        component: block.components.map(componentNode),
      })),
    },
  };
  builder ??= newBuilder();
  return builder.build(document) as string;
}
