-- args: uuid, now. Returns {entry, position, recent release times, served} or false (placeOf in prelude.lua).
return placeOf(args[1], args[2])
