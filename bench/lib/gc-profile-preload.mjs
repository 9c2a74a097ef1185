/**
 * Preloaded into the profiled proxy by bench/profile.ts (`node --import`): records every garbage collection with
 * V8's heap statistics before and after it (v8.GCProfiler) and writes them, as JSON, to the file named by
 * NETLENS_GC_PROFILE_FILE when the process exits. Plain JavaScript: it runs before any loader.
 */
import fs from 'node:fs';
import v8 from 'node:v8';

const file = process.env.NETLENS_GC_PROFILE_FILE;
if (file) {
  const profiler = new v8.GCProfiler();
  profiler.start();
  process.on('exit', () => {
    try {
      fs.writeFileSync(file, JSON.stringify(profiler.stop()?.statistics ?? []));
    } catch (err) {
      process.stderr.write(`gc-profile-preload: could not write ${file}: ${err}\n`);
    }
  });
}
