/**
 * Child process for the killed-recording test: records synthetic exchanges into
 * a session, printing how many the recorder has written after each one, until
 * it is killed. (The recorder counts an entry once its batch is written, so the
 * count printed is the one on disk, which is what the test holds it to.)
 */
import { EventStream } from '../../src/events.js';
import { SessionStore } from '../../src/sessions/store.js';
import { makeExchange } from '../har/make-exchange.js';

const dataDir = process.argv[2];
const events = new EventStream();
const recording = await new SessionStore(dataDir).startRecording(events, { name: 'doomed' });
let n = 0;
const tick = () => {
  events.emit({ type: 'complete', exchange: makeExchange() });
  n++;
  setImmediate(() => process.stdout.write(`${recording.recorder.stats.entries}\n`));
  if (n < 100_000) setTimeout(tick, 1);
};
process.stdout.write(`id ${recording.id}\n`);
tick();
