-- args: id.
redis.call('DEL', eventKey(args[1]), eventKey(args[1]) .. ':order', eventKey(args[1]) .. ':frozen')
