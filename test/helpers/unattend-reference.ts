import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * An independent structural check of Windows answer files, written from Microsoft Learn's
 * "Unattended Windows Setup Reference" (https://learn.microsoft.com/windows-hardware/customize/
 * desktop/unattend/<component>-<setting>), not from kubemix's builders. Microsoft publishes no
 * schema for the settings (Windows SIM validates against catalogs made from a Windows image,
 * which cannot be had here); the envelope rules follow Windows SIM's own unattend.xsd (settings
 * pass enumeration; component name, processorArchitecture, publicKeyToken (16 hex digits) and
 * language required; versionScope nonSxS), as published in cschneegans/unattend-generator
 * resource/autounattend.xsd at commit 4e51ea4.
 *
 * Each entry: the reference page's "Valid Configuration Passes" for a top-level setting, and its
 * child elements ("Child Elements" tables) down to the values kubemix writes. `'value'` is a
 * leaf. List items (`wcm:action="add"`) are marked `list`.
 */
type Shape = 'value' | { list?: boolean; children: Record<string, Shape> };
interface SettingRef {
  passes: readonly string[];
  shape: Shape;
}

const leaf = 'value' as const;
const node = (children: Record<string, Shape>, list = false): Shape => ({ list, children });

const LOCALE = { passes: ['windowsPE'], shape: leaf };
const OOBE_LOCALE = { passes: ['specialize', 'oobeSystem'], shape: leaf };
const PASSWORD = node({ Value: leaf, PlainText: leaf });

export const UNATTEND_REFERENCE: Record<string, Record<string, SettingRef>> = {
  // microsoft-windows-international-core-winpe-*
  'Microsoft-Windows-International-Core-WinPE': {
    SetupUILanguage: { passes: ['windowsPE'], shape: node({ UILanguage: leaf, WillShowUI: leaf }) },
    InputLocale: LOCALE,
    SystemLocale: LOCALE,
    UILanguage: LOCALE,
    UILanguageFallback: LOCALE,
    UserLocale: LOCALE,
  },
  // microsoft-windows-pnpcustomizationswinpe-driverpaths(-pathandcredentials(-path|-credentials))
  'Microsoft-Windows-PnpCustomizationsWinPE': {
    DriverPaths: {
      passes: ['windowsPE'],
      shape: node({
        PathAndCredentials: node(
          { Path: leaf, Credentials: node({ Domain: leaf, Username: leaf, Password: leaf }) },
          true,
        ),
      }),
    },
  },
  // microsoft-windows-setup-diskconfiguration-*, -imageinstall-osimage-*, -userdata-*
  'Microsoft-Windows-Setup': {
    DiskConfiguration: {
      passes: ['windowsPE'],
      shape: node({
        WillShowUI: leaf,
        Disk: node(
          {
            DiskID: leaf,
            WillWipeDisk: leaf,
            CreatePartitions: node({
              CreatePartition: node({ Order: leaf, Type: leaf, Size: leaf, Extend: leaf }, true),
            }),
            ModifyPartitions: node({
              ModifyPartition: node(
                {
                  Order: leaf,
                  PartitionID: leaf,
                  Active: leaf,
                  Extend: leaf,
                  Format: leaf,
                  Label: leaf,
                  Letter: leaf,
                  TypeID: leaf,
                },
                true,
              ),
            }),
          },
          true,
        ),
      }),
    },
    ImageInstall: {
      passes: ['windowsPE'],
      shape: node({
        OSImage: node({
          InstallFrom: node({ Path: leaf, MetaData: node({ Key: leaf, Value: leaf }, true) }),
          InstallTo: node({ DiskID: leaf, PartitionID: leaf }),
          InstallToAvailablePartition: leaf,
          WillShowUI: leaf,
        }),
      }),
    },
    UserData: {
      passes: ['windowsPE'],
      shape: node({
        AcceptEula: leaf,
        FullName: leaf,
        Organization: leaf,
        ProductKey: node({ Key: leaf, WillShowUI: leaf }),
      }),
    },
  },
  // microsoft-windows-shell-setup-* (each setting's own "Valid Configuration Passes")
  'Microsoft-Windows-Shell-Setup': {
    ComputerName: { passes: ['offlineServicing', 'specialize'], shape: leaf },
    TimeZone: { passes: ['auditSystem', 'oobeSystem', 'specialize'], shape: leaf },
    UserAccounts: {
      passes: ['auditSystem', 'oobeSystem'],
      shape: node({ AdministratorPassword: PASSWORD }),
    },
    AutoLogon: {
      passes: ['auditSystem', 'oobeSystem', 'specialize'],
      shape: node({ Domain: leaf, Enabled: leaf, LogonCount: leaf, Password: PASSWORD, Username: leaf }),
    },
    OOBE: {
      passes: ['oobeSystem'],
      shape: node({
        HideEULAPage: leaf,
        HideLocalAccountScreen: leaf,
        HideOEMRegistrationScreen: leaf,
        HideOnlineAccountScreens: leaf,
        HideWirelessSetupInOOBE: leaf,
        ProtectYourPC: leaf,
        SkipMachineOOBE: leaf,
        SkipUserOOBE: leaf,
      }),
    },
    FirstLogonCommands: {
      passes: ['oobeSystem'],
      shape: node({
        SynchronousCommand: node(
          { CommandLine: leaf, Description: leaf, Order: leaf, RequiresUserInput: leaf },
          true,
        ),
      }),
    },
  },
  // microsoft-windows-international-core-*
  'Microsoft-Windows-International-Core': {
    InputLocale: OOBE_LOCALE,
    SystemLocale: OOBE_LOCALE,
    UILanguage: OOBE_LOCALE,
    UserLocale: OOBE_LOCALE,
  },
  // microsoft-windows-pnpsysprep-persistalldeviceinstalls, -donotcleanupnonpresentdevices
  'Microsoft-Windows-PnpSysprep': {
    PersistAllDeviceInstalls: { passes: ['generalize'], shape: leaf },
    DoNotCleanUpNonPresentDevices: { passes: ['generalize'], shape: leaf },
  },
};

const PASSES = [
  'offlineServicing',
  'windowsPE',
  'generalize',
  'specialize',
  'auditSystem',
  'auditUser',
  'oobeSystem',
  'oobeUser',
];

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  preserveOrder: true,
  parseTagValue: false,
  trimValues: true,
});

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

const tagOf = (n: Ordered) => Object.keys(n).find((k) => k !== ':@')!;
const childrenOf = (n: Ordered) => (n[tagOf(n)] as Ordered[]).filter((c) => tagOf(c) !== '#text');
const attrs = (n: Ordered) => n[':@'] ?? {};

/** One `<settings pass>`/`<component>` pair as found in a document. */
export interface FoundComponent {
  pass: string;
  name: string;
  /** The component's settings, parsed without order (for value checks). */
  settings: Record<string, unknown>;
}

/**
 * Checks a document against the envelope rules and the reference above; returns every problem
 * (empty: it conforms) and the components found.
 */
export function checkUnattend(xml: string): { problems: string[]; components: FoundComponent[] } {
  const problems: string[] = [];
  const components: FoundComponent[] = [];
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    return { problems: [`not well-formed: ${valid.err.msg} at line ${valid.err.line}`], components };
  const top = (parser.parse(xml) as Ordered[]).filter((n) => !tagOf(n).startsWith('?'));
  if (top.length !== 1 || tagOf(top[0]!) !== 'unattend')
    return { problems: ['root element is not <unattend>'], components };
  const root = top[0]!;
  if (attrs(root)['@_xmlns'] !== 'urn:schemas-microsoft-com:unattend')
    problems.push('unattend: wrong default namespace');
  for (const settings of childrenOf(root)) {
    if (tagOf(settings) !== 'settings') problems.push(`unexpected <${tagOf(settings)}> under <unattend>`);
    const pass = attrs(settings)['@_pass'] ?? '';
    if (!PASSES.includes(pass)) problems.push(`settings pass "${pass}" is not a configuration pass`);
    for (const component of childrenOf(settings)) {
      const a = attrs(component);
      const name = a['@_name'] ?? '';
      const where = `${pass}/${name}`;
      if (tagOf(component) !== 'component') problems.push(`${pass}: unexpected <${tagOf(component)}>`);
      if (a['@_processorArchitecture'] !== 'amd64')
        problems.push(`${where}: processorArchitecture must be amd64`);
      if (!/^[0-9a-fA-F]{16}$/.test(a['@_publicKeyToken'] ?? '')) problems.push(`${where}: publicKeyToken`);
      if (a['@_language'] === undefined) problems.push(`${where}: language missing`);
      if (a['@_versionScope'] !== undefined && a['@_versionScope'] !== 'nonSxS')
        problems.push(`${where}: versionScope`);
      const reference = UNATTEND_REFERENCE[name];
      if (!reference) {
        problems.push(`${where}: component not in the reference`);
        continue;
      }
      for (const setting of childrenOf(component)) {
        const tag = tagOf(setting);
        const ref = reference[tag];
        if (!ref) problems.push(`${where}: ${tag} is not a setting of ${name}`);
        else if (!ref.passes.includes(pass))
          problems.push(`${where}: ${tag} is not valid in pass ${pass} (valid: ${ref.passes.join(', ')})`);
        else checkShape(setting, ref.shape, `${where}/${tag}`, problems);
      }
      components.push({ pass, name, settings: unorderedSettings(xml, pass, name) });
    }
  }
  return { problems, components };
}

function checkShape(element: Ordered, shape: Shape, where: string, problems: string[]): void {
  const a = attrs(element);
  const children = childrenOf(element);
  if (shape === 'value') {
    if (children.length > 0) problems.push(`${where}: must hold a value, not elements`);
    const text = (element[tagOf(element)] as Ordered[]).find((c) => tagOf(c) === '#text');
    if (text === undefined) problems.push(`${where}: empty value (the reference forbids empty elements)`);
    return;
  }
  if (shape.list && a['@_wcm:action'] !== 'add')
    problems.push(`${where}: list item without wcm:action="add"`);
  if (!shape.list && a['@_wcm:action'] !== undefined)
    problems.push(`${where}: wcm:action on a non-list setting`);
  for (const child of children) {
    const tag = tagOf(child);
    const childShape = shape.children[tag];
    if (childShape === undefined) problems.push(`${where}: unexpected child <${tag}>`);
    else checkShape(child, childShape, `${where}/${tag}`, problems);
  }
}

const unordered = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  isArray: (name) => name === 'settings' || name === 'component',
});

// The settings of one component as plain objects (values as strings), for value checks.
function unorderedSettings(xml: string, pass: string, name: string): Record<string, unknown> {
  const doc = unordered.parse(xml) as {
    unattend: { settings: { '@_pass': string; component: Record<string, unknown>[] }[] };
  };
  const block = doc.unattend.settings.find((s) => s['@_pass'] === pass);
  return block?.component.find((c) => c['@_name'] === name) ?? {};
}
