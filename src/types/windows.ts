/**
 * Windows Server versions kubemix supports (the spec's `windowsVersion`). Their builds and images
 * are mapped in src/manifests/windows-workloads.ts; everything else names a version by this type.
 */
export const WINDOWS_VERSIONS = ['2019', '2022', '2025'] as const;

/** A Windows Server version kubemix supports. */
export type WindowsVersion = (typeof WINDOWS_VERSIONS)[number];
