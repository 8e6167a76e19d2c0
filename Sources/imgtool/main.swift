print("imgtool: the command line lands in the next commit")
