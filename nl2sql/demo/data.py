"""Fixed inputs of the demo data: the seed, regions, cities, names, the product catalog.

Plain constants, so the generated data depends only on these and the scale.
"""

from __future__ import annotations

#: The seed of every random stream of the demo.
SEED = 20_250_630
#: The demo's reference date, the last day with orders: relative dates ("last month") in demo
#: questions count from it, so the demo's answers never change with the calendar.
REFERENCE_DATE = "2025-06-30"

REGIONS = ("North", "South", "East", "West", "Central")

# fmt: off
#: (city, state, region). Every region has several states; state names are written out in full.
CITIES = (
    ("Minneapolis", "Minnesota", "North"), ("Saint Paul", "Minnesota", "North"),
    ("Milwaukee", "Wisconsin", "North"), ("Madison", "Wisconsin", "North"),
    ("Detroit", "Michigan", "North"), ("Grand Rapids", "Michigan", "North"),
    ("Fargo", "North Dakota", "North"), ("Billings", "Montana", "North"),
    ("Houston", "Texas", "South"), ("Austin", "Texas", "South"), ("Dallas", "Texas", "South"),
    ("San Antonio", "Texas", "South"), ("Miami", "Florida", "South"), ("Orlando", "Florida", "South"),
    ("Tampa", "Florida", "South"), ("Atlanta", "Georgia", "South"),
    ("Charlotte", "North Carolina", "South"), ("Nashville", "Tennessee", "South"),
    ("New Orleans", "Louisiana", "South"),
    ("New York", "New York", "East"), ("Buffalo", "New York", "East"),
    ("Boston", "Massachusetts", "East"), ("Philadelphia", "Pennsylvania", "East"),
    ("Pittsburgh", "Pennsylvania", "East"), ("Newark", "New Jersey", "East"),
    ("Baltimore", "Maryland", "East"), ("Richmond", "Virginia", "East"),
    ("Hartford", "Connecticut", "East"),
    ("Los Angeles", "California", "West"), ("San Francisco", "California", "West"),
    ("San Diego", "California", "West"), ("Sacramento", "California", "West"),
    ("Seattle", "Washington", "West"), ("Spokane", "Washington", "West"),
    ("Portland", "Oregon", "West"), ("Las Vegas", "Nevada", "West"), ("Phoenix", "Arizona", "West"),
    ("Denver", "Colorado", "West"), ("Salt Lake City", "Utah", "West"),
    ("Chicago", "Illinois", "Central"), ("Springfield", "Illinois", "Central"),
    ("St. Louis", "Missouri", "Central"), ("Kansas City", "Missouri", "Central"),
    ("Omaha", "Nebraska", "Central"), ("Des Moines", "Iowa", "Central"),
    ("Wichita", "Kansas", "Central"), ("Oklahoma City", "Oklahoma", "Central"),
    ("Indianapolis", "Indiana", "Central"), ("Columbus", "Ohio", "Central"),
)

#: Relative population weight of each city's customer base (in CITIES order).
CITY_WEIGHTS = (
    5, 3, 3, 2, 4, 2, 1, 1,  # North
    9, 5, 7, 4, 6, 4, 4, 6, 4, 4, 3,  # South
    12, 2, 5, 6, 3, 3, 3, 2, 2,  # East
    11, 6, 5, 3, 5, 1, 4, 3, 5, 4, 2,  # West
    9, 1, 3, 3, 2, 2, 1, 2, 3, 3,  # Central
)

STORE_SUFFIXES = ("Downtown", "Mall", "Plaza", "Outlet", "Center", "Commons", "Galleria")

FIRST_NAMES = (
    "James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
    "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
    "Christopher", "Karen", "Charles", "Lisa", "Daniel", "Nancy", "Matthew", "Betty", "Anthony",
    "Sandra", "Mark", "Margaret", "Donald", "Ashley", "Steven", "Kimberly", "Andrew", "Emily",
    "Paul", "Donna", "Joshua", "Michelle", "Kenneth", "Carol", "Kevin", "Amanda", "Brian",
    "Melissa", "George", "Deborah", "Timothy", "Stephanie", "Ronald", "Dorothy", "Jason",
    "Rebecca", "Edward", "Sharon", "Jeffrey", "Laura", "Ryan", "Cynthia", "Jacob", "Amy", "Gary",
    "Kathleen", "Nicholas", "Angela", "Eric", "Shirley", "Jonathan", "Brenda", "Stephen", "Emma",
    "Larry", "Anna", "Justin", "Pamela", "Scott", "Nicole", "Brandon", "Samantha", "Benjamin",
    "Katherine", "Samuel", "Christine", "Gregory", "Helen", "Alexander", "Debra", "Patrick",
    "Rachel", "Frank", "Carolyn", "Raymond", "Janet", "Jack", "Maria", "Dennis", "Catherine",
    "Jerry", "Heather", "Tyler", "Diane", "Aaron", "Olivia", "Jose", "Julie", "Adam", "Joyce",
    "Nathan", "Victoria", "Henry", "Ruth", "Zachary", "Virginia", "Douglas", "Lauren", "Peter",
    "Kelly", "Kyle", "Christina", "Noah", "Joan", "Ethan", "Evelyn", "Jeremy", "Judith",
    "Christian", "Andrea", "Walter", "Hannah", "Keith", "Megan", "Austin", "Cheryl", "Roger",
    "Jacqueline", "Terry", "Martha", "Sean", "Madison", "Gerald", "Teresa", "Carl", "Gloria",
    "Dylan", "Sara", "Harold", "Janice", "Jordan", "Ann", "Jesse", "Kathryn", "Bryan", "Abigail",
    "Lawrence", "Sophia", "Arthur", "Frances", "Gabriel", "Jean", "Bruce", "Alice", "Logan",
    "Judy", "Billy", "Isabella", "Joe", "Julia", "Alan", "Grace", "Juan", "Amber", "Elijah",
    "Denise", "Willie", "Danielle", "Albert", "Marilyn", "Wayne", "Beverly", "Randy", "Charlotte",
    "Mason", "Natalie", "Vincent", "Theresa", "Liam", "Diana", "Roy", "Brittany", "Bobby", "Doris",
    "Caleb", "Kayla", "Bradley", "Alexis", "Russell", "Lori", "Lucas", "Marie", "Priya", "Wei",
    "Mei", "Hiroshi", "Yuki", "Carlos", "Sofia", "Luis", "Camila", "Ahmed", "Fatima", "Omar",
    "Aisha", "Raj", "Ananya", "Chen", "Lin", "Diego", "Valentina", "Mateo", "Lucia",
)

LAST_NAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
    "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor",
    "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
    "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright",
    "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall",
    "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Gomez", "Phillips", "Evans", "Turner",
    "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes", "Stewart", "Morris", "Morales",
    "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper", "Peterson", "Bailey",
    "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson", "Watson", "Brooks",
    "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes", "Price", "Alvarez",
    "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez", "Powell",
    "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
    "Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander",
    "Hamilton", "Graham", "Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes",
    "Bryant", "Herrera", "Gibson", "Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray",
    "Ford", "Castro", "Marshall", "Owens", "Harrison", "Fernandez", "McDonald", "Woods",
    "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen", "Freeman", "Webb", "Tucker",
    "Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter", "Gordon", "Mendez",
    "Silva", "Shaw", "Snyder", "Mason", "Dixon", "Munoz", "Hunt", "Hicks", "Holmes", "Palmer",
    "Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar", "Fox", "Warren", "Mills",
    "Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens", "Soto",
    "Weaver", "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kelley", "Spencer", "Hawkins",
    "Arnold", "Pierce", "Hansen", "Peters", "Santos", "Hart", "Bradley", "Knight", "Elliott",
    "Cunningham", "Duncan", "Armstrong", "Hudson", "Carroll", "Lane", "Riley", "Andrews",
    "Ray", "Berry", "Perkins", "Hoffman", "Johnston", "Matthews", "Pena", "Richards", "Wang",
    "Zhang", "Singh", "Sharma", "Tanaka", "Sato", "Nakamura", "Kowalski", "Novak", "Larsen",
)

EMAIL_DOMAINS = ("example.com", "mail.example", "inbox.example", "post.example", "webmail.example")

SEGMENTS = ("Consumer", "Corporate", "Small Business")
SEGMENT_WEIGHTS = (0.6, 0.25, 0.15)

#: category -> (brands, item names, (lowest, highest) list price in dollars, popularity weight)
CATALOG = {
    "Electronics": (
        ("Voltix", "Lumina", "Corex", "Auralink"),
        ("Wireless Headphones", "Bluetooth Speaker", "27-inch Monitor", "USB-C Hub",
         "Mechanical Keyboard", "Wireless Mouse", "Webcam", "Portable Charger", "Smartwatch",
         "Noise-Cancelling Earbuds", "Tablet", "Laptop"),
        (15.0, 1400.0), 1.4,
    ),
    "Furniture": (
        ("Oakline", "Nordhaus", "Comfort Co"),
        ("Office Chair", "Standing Desk", "Bookshelf", "Filing Cabinet", "Sofa", "Coffee Table",
         "Desk Lamp", "Dining Chair"),
        (35.0, 1200.0), 0.6,
    ),
    "Office Supplies": (
        ("Papermate Pro", "Stapleton", "Inkwell"),
        ("Printer Paper (500 sheets)", "Gel Pens (12-pack)", "Sticky Notes", "Stapler",
         "Notebook", "Binder", "Desk Organizer", "Whiteboard Markers", "Envelopes (100)"),
        (2.5, 60.0), 1.5,
    ),
    "Clothing": (
        ("Northtrail", "Urbanline", "Cotton & Co"),
        ("T-Shirt", "Hoodie", "Rain Jacket", "Jeans", "Sneakers", "Wool Sweater", "Baseball Cap",
         "Running Shorts"),
        (12.0, 180.0), 1.2,
    ),
    "Sports": (
        ("Peakform", "Stride", "Summit Gear"),
        ("Yoga Mat", "Dumbbell Set", "Tennis Racket", "Basketball", "Camping Tent",
         "Hiking Backpack", "Water Bottle", "Bicycle Helmet", "Resistance Bands"),
        (8.0, 450.0), 0.9,
    ),
    "Home & Kitchen": (
        ("Hearth", "Kitchenworks", "Casa Bella"),
        ("Coffee Maker", "Blender", "Chef's Knife", "Cookware Set", "Toaster", "Air Fryer",
         "Bath Towels", "Bed Sheets"),
        (15.0, 350.0), 1.0,
    ),
    "Books": (
        ("Riverside Press", "Lantern Books"),
        ("Data Analysis Handbook", "Mystery Novel", "Cookbook", "Travel Guide", "Biography",
         "Science Fiction Novel", "Children's Picture Book"),
        (8.0, 60.0), 0.7,
    ),
}

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

#: Multiplier on order volume per calendar month (holiday peak, January dip).
MONTH_WEIGHTS = (0.80, 0.78, 0.92, 0.95, 1.00, 0.98, 0.97, 1.02, 0.96, 1.05, 1.35, 1.55)

ORDER_STATUSES = ("completed", "returned", "cancelled")
ORDER_STATUS_WEIGHTS = (0.88, 0.06, 0.06)
CHANNELS = ("online", "in-store")

TIERS = ("Bronze", "Silver", "Gold", "Platinum")
CONTACT_ROLES = ("Owner", "Purchasing Manager", "Accounts Payable", "Operations Lead", "IT Admin",
                 "Office Manager")
COMPANY_WORDS = ("Summit", "Harbor", "Pioneer", "Bluebird", "Granite", "Evergreen", "Redwood",
                 "Atlas", "Beacon", "Cedar", "Keystone", "Liberty", "Meridian", "Northstar",
                 "Orchard", "Prairie", "Riverbend", "Silverline", "Trident", "Westfield")
COMPANY_KINDS = ("Logistics", "Consulting", "Supply", "Partners", "Holdings", "Labs", "Media",
                 "Builders", "Health", "Foods", "Design", "Systems")
COMPANY_SUFFIXES = ("LLC", "Inc.", "Co.", "Group")

TICKET_PRIORITIES = ("low", "medium", "high", "urgent")
TICKET_PRIORITY_WEIGHTS = (0.35, 0.40, 0.18, 0.07)
TICKET_CATEGORIES = ("billing", "shipping", "product defect", "returns", "account")
TICKET_CATEGORY_WEIGHTS = (0.25, 0.30, 0.20, 0.15, 0.10)
# fmt: on
