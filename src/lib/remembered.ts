/**
 * Remembers the results of a function of a string, up to `limit` of them (then forgets them all:
 * the keys are few in practice, and a full cache means something unusual is going on). A call that
 * throws remembers nothing.
 */
export function remembered<V>(limit: number, compute: (key: string) => V): (key: string) => V {
  const results = new Map<string, V>();
  return (key) => {
    if (results.has(key)) return results.get(key) as V;
    const result = compute(key);
    if (results.size >= limit) results.clear();
    results.set(key, result);
    return result;
  };
}
