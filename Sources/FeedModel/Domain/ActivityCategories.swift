/// The banks' category names, each kept once per process and named by a number (`Activity`
/// keeps the number): a feed has a few dozen categories and a million activities. Number 0 is
/// none; past 65,535 names a new one is kept as none (a hostile feed cannot grow the table
/// without bound), and a name longer than 64 characters is cut there.
public enum ActivityCategories {
    private struct Table {
        var names: [String] = [""]
        var numbers: [String: UInt16] = [:]
    }

    private static let table = Locked(Table())

    static func number(_ name: String?) -> UInt16 {
        guard let name, !name.isEmpty else { return 0 }
        let kept = String(name.prefix(64))
        return table.withLock { table in
            if let number = table.numbers[kept] { return number }
            guard table.names.count <= Int(UInt16.max) else { return 0 }
            let number = UInt16(table.names.count)
            table.names.append(kept)
            table.numbers[kept] = number
            return number
        }
    }

    static func name(_ number: UInt16) -> String? {
        guard number != 0 else { return nil }
        return table.withLock { table in Int(number) < table.names.count ? table.names[Int(number)] : nil }
    }
}
