/**
 * Preloaded into the profiled proxy by bench/profile.ts (`node --import`) when NETLENS_ALLOC_PROFILE_FILE is set:
 * V8's sampling heap profiler over the whole run, counting objects the collector has since freed too (what a
 * request allocates, not only what survives), written as JSON to that file when the process exits. The in-process
 * inspector session answers synchronously, so the exit handler can stop it. Plain JavaScript: it runs before any
 * loader.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';

const file = process.env.NETLENS_ALLOC_PROFILE_FILE;
if (file) {
  const session = new inspector.Session();
  session.connect();
  // One sample per 16 KiB allocated on average: ~70 samples per 1,000 requests of ~55 KB, little enough overhead.
  // NETLENS_ALLOC_PROFILE_SURVIVORS=1: objects a scavenge freed are left out, so what is left outlived one.
  const survivors = process.env.NETLENS_ALLOC_PROFILE_SURVIVORS === '1';
  const params = { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !survivors };
  session.post('HeapProfiler.startSampling', params, (err) => {
    if (err) process.stderr.write(`alloc-profile-preload: ${err.message}\n`);
  });
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      try {
        if (err) throw err;
        fs.writeFileSync(file, JSON.stringify(result.profile));
      } catch (e) {
        process.stderr.write(`alloc-profile-preload: could not write ${file}: ${e}\n`);
      }
    });
  });
}
