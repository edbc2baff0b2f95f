/**
 * Escapes text for XML element content and attribute values (`&`, `<`, `>`, `"`): the one XML
 * escaper, used by the WinRM SOAP envelopes and the CI reports (JUnit XML, HTML).
 */
export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
