import { XMLBuilder } from 'fast-xml-parser';

/**
 * An XML element as data: `@name` keys are attributes, `#text` is text, other keys are child
 * elements (an array repeats the element). Values are escaped by the builder, never spliced.
 */
export type XmlNode = { [key: string]: XmlValue };
export type XmlValue = string | number | XmlNode | XmlNode[] | undefined;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  format: true,
  suppressEmptyNode: true,
});

/** Serializes one root element (fast-xml-parser's builder escapes text and attribute values). */
export function toXml(root: string, node: XmlNode): string {
  return builder.build({ [root]: node }) as string;
}
