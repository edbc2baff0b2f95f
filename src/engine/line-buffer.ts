import type { OutputChunk } from '../transport/types.js';

/**
 * Passes live output on by whole lines, so a secret split across two chunks is still redacted
 * as one; what is left without a newline goes out on flush (call it when the command ends).
 */
export function lineBuffer(emit: (stream: OutputChunk['stream'], data: string) => void) {
  const pending = { stdout: '', stderr: '' };
  return {
    push: (chunk: OutputChunk) => {
      const text = pending[chunk.stream] + chunk.data;
      const cut = text.lastIndexOf('\n');
      if (cut === -1) {
        pending[chunk.stream] = text;
        return;
      }
      pending[chunk.stream] = text.slice(cut + 1);
      emit(chunk.stream, text.slice(0, cut + 1));
    },
    flush: () => {
      for (const stream of ['stdout', 'stderr'] as const) {
        if (pending[stream] !== '') emit(stream, pending[stream]);
        pending[stream] = '';
      }
    },
  };
}
