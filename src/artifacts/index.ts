export {
  ArtifactFetchError,
  type FetchArtifactsOptions,
  type FetchEvent,
  fetchArtifacts,
  mirrorUrl,
} from './fetch.js';
export {
  type Artifact,
  type ArtifactEntry,
  type ArtifactKind,
  type ArtifactOs,
  type ArtifactsFile,
  artifactsFilePath,
  loadArtifactsFile,
  parseArtifactsFile,
  renderArtifacts,
} from './list.js';
export {
  type ArtifactProblem,
  ArtifactsCheckError,
  type ArtifactsLock,
  checkArtifacts,
  hashFile,
  IMAGES_FILE,
  imagesText,
  LOCK_FILE,
  LOCK_FORMAT,
  type LockEntry,
  readLock,
  writeLock,
} from './lock.js';
