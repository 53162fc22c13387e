/**
 * Passwords attackers try first: the top of the public "most common passwords" lists (breach compilations such as
 * SecLists' 10k-most-common and NordPass's yearly lists), written out by hand and lower-cased. Shipped with the
 * server: nothing is downloaded at run time. password-policy.ts also refuses their variants (a word from here with
 * digits or symbols added), one character repeated and straight runs (12345678, abcdefgh, 98765432).
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set(`
123456 123456789 12345678 password qwerty 12345 1234567 111111 123123 1234567890 000000 abc123 password1 1234
iloveyou 1q2w3e4r 1q2w3e4r5t qwerty123 qwertyuiop 654321 555555 666666 777777 888888 999999 121212 112233 123321
7777777 11111111 00000000 22222222 33333333 44444444 55555555 66666666 77777777 88888888 99999999 12341234
11223344 87654321 123qwe 1qaz2wsx zaq12wsx zaq1zaq1 qazwsx qazwsxedc asdfgh asdfghjk asdfghjkl zxcvbnm zxcvbn
qwertyui qwerasdf 1qazxsw2 q1w2e3r4 q1w2e3r4t5 a1b2c3d4 1a2b3c4d abcd1234 abcdefg abcdefgh abc12345 aa123456
a123456 a12345678 password123 password12 password! passw0rd p@ssw0rd p@ssword pa55word pass1234 pass123 passpass
passwort motdepasse contraseña contrasena senha parola wachtwoord haslo salasana lösenord losenord passord admin
admin123 admin1234 administrator root toor changeme letmein welcome welcome1 welcome123 default guest test
test123 test1234 testing tester demo demo123 user user123 login secret secret123 master master123 iloveyou1
iloveu loveyou lovely love love123 loveme ilovegod trustno1 whatever nothing nopassword sunshine princess dragon
monkey football baseball basketball soccer hockey tennis golf jordan23 superman batman spiderman ironman
starwars pokemon naruto michael jennifer jessica ashley daniel charlie thomas robert hannah matthew andrew
joshua nicole amanda michelle jordan hunter buster tigger shadow ginger pepper maggie cookie chocolate butterfly
flower purple orange banana cheese computer internet samsung google apple microsoft freedom liberty summer
winter autumn spring sunday monday friday killer hello hello123 hellokitty qwerty1 qwerty12 qwerty1234 azerty
azertyuiop qwertz qwertzuiop 1qw23e 1q2w3e 1q2w3e4r5t6y mustang harley corvette ferrari porsche mercedes yamaha
letmein1 access access14 mypass mypassword yourpassword thepassword password01 password2 password3 passw0rd1
blahblah asdf asdf1234 asdfasdf qweqwe qweasd qweasdzxc zxczxc zxcv1234 1234qwer qwer1234 1234abcd computer1
internet1 football1 baseball1 monkey1 dragon1 shadow1 master1 michael1 jordan1 superman1 princess1 sunshine1
charlie1 jennifer1 qwerty123456 123456a 123456q 12345a 12345q 123abc abc 111222 112233445566 aaaaaa aaaaaaaa
abcabc abc123456 123654 147258 147258369 159753 159357 741852963 789456 789456123 963852741 1111 2222 0000 4321
131313 202020 212121 232323 252525 696969 101010 123456789a 1234567a 12345678a zxcvbnm1 azerty123 soleil bonjour
doudou chouchou loulou marseille nicolas camille hallo schatz passwort1 ficken fussball schalke04 bayern qwerty7
michelle1 jessica1 daniel1 ashley1 angel angel1 angels baby babygirl babygirl1 beautiful family forever friends
friend happy happy123 lucky lucky7 magic matrix merlin money money123 mother mickey minnie samantha secret1
silver snoopy sophie starwars1 sweety tiger tigers william zaq12wsx1 qwe123 qwe12345 qwe123456 asd123 asdqwe123
zxc123 zxc123456 servicechat service chat chatbot support helpdesk company business office 12qwaszx 1qazxsw23edc
1qaz2wsx3edc !qaz2wsx !qaz1qaz
`.split(/\s+/).filter(Boolean));
