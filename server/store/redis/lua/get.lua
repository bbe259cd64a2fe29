-- args: uuid. Returns the entry or false.
return entry(args[1])
