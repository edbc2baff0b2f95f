import type { XMLBuilder } from 'fast-xml-parser';
import { fastXmlParser } from './xml-library.js';

/**
 * An XML element as data: `@name` keys are attributes, `#text` is text, other keys are child
 * elements (an array repeats the element). Values are escaped by the builder, never spliced.
 */
export type XmlNode = { [key: string]: XmlValue };
export type XmlValue = string | number | XmlNode | XmlNode[] | undefined;

let builder: XMLBuilder | undefined;
const newBuilder = () =>
  new (fastXmlParser().XMLBuilder)({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    textNodeName: '#text',
    format: true,
    suppressEmptyNode: true,
  });

/** Serializes one root element (fast-xml-parser's builder escapes text and attribute values). */
export function toXml(root: string, node: XmlNode): string {
  builder ??= newBuilder();
  return builder.build({ [root]: node }) as string;
}
