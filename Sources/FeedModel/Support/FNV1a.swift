/// FNV-1a, 64 bits: a stable hash of bytes, the same in every process and on every machine
/// (Swift's `Hasher` is seeded per process). Ids and file names made from content use it.
public enum FNV1a {
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
