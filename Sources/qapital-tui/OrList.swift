/// "demo, qapital or up": names for a help text or a refusal (one name alone; none: "").
func orList(_ names: [String]) -> String {
    guard names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
}
