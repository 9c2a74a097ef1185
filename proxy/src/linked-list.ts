/**
 * A doubly linked list for long-lived collections that every request joins and leaves (upstream deadlines, the
 * requests in flight on a connection or an HTTP/2 session, HTTP/2 requests waiting to be taken in), in place of a Set
 * or Map.
 *
 * Why not a Set or Map: one that is added to and deleted from on every request gets its hash table rebuilt every
 * few requests, and V8 leaves each replaced table pointing at its successor, entries and all (for iterators that
 * started on it). Once the collector has moved a table to the old generation and it is replaced, only a full
 * collection reclaims it; until then every young-generation collection treats what it points at as alive: the
 * next table, its entries and everything they reach, which for these collections is the whole exchange of every
 * request in flight when a table was rebuilt. With the upstream deadlines in a Set, HTTPS scavenges took 3.4-3.6 ms
 * against 0.7 ms without them (docs/benchmarks.md, "Where the CPU goes"). A node removed from this list lets go of
 * its neighbours and its value, so nothing it pointed at outlives it.
 */
export interface ListNode<T> {
  /** Undefined once the node has left the list. */
  value: T | undefined;
  prev: ListNode<T> | undefined;
  next: ListNode<T> | undefined;
}

export class LinkedList<T> {
  private head: ListNode<T> | undefined;
  private tail: ListNode<T> | undefined;
  size = 0;

  /** Appends `value`; the node is what `remove` takes. */
  push(value: T): ListNode<T> {
    const node: ListNode<T> = { value, prev: this.tail, next: undefined };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.size++;
    return node;
  }

  /** Unlinks `node` and drops its references; false if it had left already. */
  remove(node: ListNode<T>): boolean {
    if (node.value === undefined) return false;
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = node.value = undefined;
    this.size--;
    return true;
  }

  /** Removes and returns the first value (undefined when empty): the list as a first-in, first-out queue. */
  shift(): T | undefined {
    const first = this.head;
    if (!first) return undefined;
    const value = first.value;
    this.remove(first);
    return value;
  }

  /** The nodes in order, as an array: callers may remove nodes (and so change the links) while they go through it. */
  nodes(): ListNode<T>[] {
    const out: ListNode<T>[] = [];
    for (let n = this.head; n; n = n.next) out.push(n);
    return out;
  }

  /** The values in order, as an array (see `nodes`). */
  values(): T[] {
    const out: T[] = [];
    for (let n = this.head; n; n = n.next) out.push(n.value!);
    return out;
  }

  clear(): void {
    while (this.head) this.remove(this.head);
  }
}
