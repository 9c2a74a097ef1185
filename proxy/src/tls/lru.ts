/**
 * A least-recently-used map bounded by entry count: Map keeps insertion order,
 * so a hit re-inserts its key at the end and eviction takes the first key.
 * Used for per-host certificates and TLS contexts, which would otherwise grow
 * with every host a long-running proxy ever intercepted.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private max: number) {
    if (!(max >= 1)) throw new RangeError(`LRU size must be at least 1 (got ${max})`);
  }

  get size(): number {
    return this.map.size;
  }

  get limit(): number {
    return this.max;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.trim();
  }

  /** Changes the bound; shrinking drops the least recently used entries at once. */
  resize(max: number): void {
    if (!(max >= 1)) throw new RangeError(`LRU size must be at least 1 (got ${max})`);
    this.max = max;
    this.trim();
  }

  private trim(): void {
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
}
