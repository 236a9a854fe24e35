/// A dictionary for a vault's every file: its entries in two dense arrays (keys, values) found
/// through a table of 32-bit positions, at most half full.
///
/// Why not `Dictionary`: it keeps keys and values in its own table, at most three quarters full
/// and sized in powers of two, so 1,000,000 entries take 2,097,152 slots of a key and a value:
/// 151 MB for a path and a ``LocalFile``. Here they take 1,000,000 entries (72 MB) and 2,097,152
/// positions of 4 bytes (8 MB). Removing moves the last entry into the gap, so iteration order is
/// not insertion order (nor is a `Dictionary`'s).
public struct CompactDictionary<Key: Hashable, Value>: Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: Key, value: Value)

    private var keyList: ContiguousArray<Key> = []
    private var valueList: ContiguousArray<Value> = []
    /// Open addressing with linear probing: 0 is an empty slot, n is the entry at n - 1.
    private var slots: [UInt32] = []

    public init() {}

    public init(minimumCapacity: Int) {
        reserveCapacity(minimumCapacity)
    }

    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.init(minimumCapacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// The entries of `dictionary`.
    public init(_ dictionary: [Key: Value]) {
        self.init(minimumCapacity: dictionary.count)
        for (key, value) in dictionary { self[key] = value }
    }

    public var count: Int { keyList.count }
    public var isEmpty: Bool { keyList.isEmpty }
    /// Every key, in the entries' order.
    public var keys: ContiguousArray<Key> { keyList }
    /// Every value, in the entries' order.
    public var values: ContiguousArray<Value> { valueList }

    /// Room for `count` entries without growing.
    public mutating func reserveCapacity(_ count: Int) {
        keyList.reserveCapacity(count)
        valueList.reserveCapacity(count)
        let wanted = Self.slotCount(for: count)
        if wanted > slots.count { rehash(into: wanted) }
    }

    public subscript(key: Key) -> Value? {
        get { find(key).entry.map { valueList[$0] } }
        set {
            let (slot, entry) = find(key)
            switch (entry, newValue) {
            case (let entry?, let value?):
                valueList[entry] = value
            case (let entry?, nil):
                remove(entry: entry, at: slot)
            case (nil, let value?):
                if Self.slotCount(for: keyList.count + 1) > slots.count {
                    rehash(into: Self.slotCount(for: keyList.count + 1))
                    insert(key, value, at: find(key).slot)
                } else {
                    insert(key, value, at: slot)
                }
            case (nil, nil):
                break
            }
        }
    }

    /// The key held that equals `key`: for keys holding strings, equal may not be the same bytes
    /// (Swift calls NFC and NFD spellings one string), and the one held is the one found.
    public func storedKey(_ key: Key) -> Key? {
        find(key).entry.map { keyList[$0] }
    }

    /// Removes `key`'s entry; returns its value.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        let (slot, entry) = find(key)
        guard let entry else { return nil }
        let value = valueList[entry]
        remove(entry: entry, at: slot)
        return value
    }

    public func makeIterator() -> some IteratorProtocol<Element> {
        zip(keyList, valueList).lazy.map { (key: $0, value: $1) }.makeIterator()
    }

    /// The entries `isIncluded` keeps, as a dictionary of this kind (as `Dictionary`'s does).
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> CompactDictionary {
        var kept = CompactDictionary()
        for element in self where try isIncluded(element) { kept[element.key] = element.value }
        return kept
    }

    /// The same entries as a `Dictionary`.
    public var dictionary: [Key: Value] {
        Dictionary(uniqueKeysWithValues: zip(keyList, valueList))
    }

    // MARK: - The table

    /// Powers of two, at least twice `count`: probes stay short.
    private static func slotCount(for count: Int) -> Int {
        count == 0 ? 0 : Swift.max(8, (count * 2 - 1).nextPowerOfTwo)
    }

    /// `key`'s slot, or where it would go, and its entry's index when held.
    private func find(_ key: Key) -> (slot: Int, entry: Int?) {
        guard !slots.isEmpty else { return (0, nil) }
        let mask = slots.count - 1
        var slot = key.hashValue & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot]) - 1
            if keyList[entry] == key { return (slot, entry) }
            slot = (slot + 1) & mask
        }
        return (slot, nil)
    }

    private mutating func insert(_ key: Key, _ value: Value, at slot: Int) {
        keyList.append(key)
        valueList.append(value)
        slots[slot] = UInt32(keyList.count)
    }

    private mutating func rehash(into count: Int) {
        slots = Array(repeating: 0, count: count)
        let mask = count - 1
        for (entry, key) in keyList.enumerated() {
            var slot = key.hashValue & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(entry + 1)
        }
    }

    /// Empties `slot` (the entry `entry`'s), shifting back the probe run after it so that every
    /// key stays reachable, then moves the last entry into the gap.
    private mutating func remove(entry: Int, at slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = (hole + 1) & mask
        while slots[next] != 0 {
            let home = keyList[Int(slots[next]) - 1].hashValue & mask
            // The entry at `next` may move back into the hole unless its home lies after the hole
            // (cyclically) and at or before `next`.
            let stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !stays {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = 0
        let last = keyList.count - 1
        if entry != last {
            // The last entry's slot now names the gap it moves into.
            var moved = keyList[last].hashValue & mask
            while slots[moved] != UInt32(last + 1) { moved = (moved + 1) & mask }
            slots[moved] = UInt32(entry + 1)
            keyList.swapAt(entry, last)
            valueList.swapAt(entry, last)
        }
        keyList.removeLast()
        valueList.removeLast()
    }
}

extension CompactDictionary: Sendable where Key: Sendable, Value: Sendable {}

extension CompactDictionary: Equatable where Value: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        a.count == b.count && a.allSatisfy { b[$0.key] == $0.value }
    }
}

extension Int {
    /// The least power of two at or above this (positive) number.
    fileprivate var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
