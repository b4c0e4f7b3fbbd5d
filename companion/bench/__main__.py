from companion.bench import main

main()
